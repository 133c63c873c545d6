package gate

// CachedKeys returns the number of key records g caches as found, for tests.
func CachedKeys(g *Gate) int { return g.configs.keys.Len() }

// CachedMisses returns the number of key hashes g caches as not found, for tests.
func CachedMisses(g *Gate) int { return g.configs.missing.Len() }

// CachedDenials returns the number of denials g caches, for tests.
func CachedDenials(g *Gate) int { return g.denials.m.Len() }
