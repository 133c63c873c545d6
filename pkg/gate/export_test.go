package gate

// CachedKeys returns the number of key records g caches, for tests.
func CachedKeys(g *Gate) int { return g.configs.keys.len() }

// CachedDenials returns the number of denials g caches, for tests.
func CachedDenials(g *Gate) int { return g.denials.len() }
