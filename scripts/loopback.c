/*
 * loopback.c: an LD_PRELOAD shim that turns a bind to every interface (0.0.0.0 or ::)
 * into a bind to the loopback address (127.0.0.1 or ::1).
 *
 * DynamoDB Local has no option to choose its listening address (its Jetty server
 * listens on every interface), and our test servers bind to 127.0.0.1 only.
 * scripts/services.sh builds this file into <tools>/lib/loopback.so with the C compiler
 * Go uses for -race, and starts DynamoDB Local with it and -Djava.net.preferIPv4Stack=true.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
	static bind_fn real;
	if (!real)
		real = (bind_fn)dlsym(RTLD_NEXT, "bind");
	if (addr && addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in a;
		memcpy(&a, addr, sizeof a);
		if (a.sin_addr.s_addr == htonl(INADDR_ANY)) {
			a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			return real(fd, (const struct sockaddr *)&a, sizeof a);
		}
	}
	if (addr && addr->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 a;
		memcpy(&a, addr, sizeof a);
		if (IN6_IS_ADDR_UNSPECIFIED(&a.sin6_addr)) {
			a.sin6_addr = in6addr_loopback;
			return real(fd, (const struct sockaddr *)&a, sizeof a);
		}
	}
	return real(fd, addr, len);
}
