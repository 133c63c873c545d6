package gate

// CachedMisses returns the number of key hashes g caches as not found, for tests.
func CachedMisses(g *Gate) int { return g.configs.missing.Len() }

// CachedDenials returns the number of denials g caches, for tests.
func CachedDenials(g *Gate) int { return g.denials.m.Len() }
