package upstashrest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// forbidden are the calls by which code of its own would read an HTTP answer off a
// socket, or open one: the connection pool and its peek that this package had.
var forbidden = map[string]bool{
	"http.ReadResponse": true, "net.Dial": true, "net.DialTimeout": true, "tls.Client": true,
	"tls.Dial": true, "bufio.NewReader": true, "syscall.Read": true, "syscall.Recvfrom": true,
}

// No code outside net/http reads an HTTP response off a socket: the package's files
// (tests aside) call none of forbidden, import neither syscall nor bufio, and none is a
// wire*.go.
func TestNoCodeOfOursReadsHTTPOffASocket(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		files++
		if strings.HasPrefix(name, "wire") {
			t.Errorf("%s: the connection pool's files are gone", name)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "syscall" || p == "bufio" {
				t.Errorf("%s imports %s", name, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && forbidden[id.Name+"."+sel.Sel.Name] {
					t.Errorf("%s calls %s.%s", name, id.Name, sel.Sel.Name)
				}
			}
			return true
		})
	}
	if files < 5 {
		t.Fatalf("read %d files of the package, want all of them", files)
	}
}
