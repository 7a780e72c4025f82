package stack

import "strconv"

// Item and Catalog make the answer, encoded per request.
type Item struct {
	ID    int      `json:"id"`
	Name  string   `json:"name"`
	Price int      `json:"price"`
	Tags  []string `json:"tags"`
}

// Catalog is the route's JSON answer.
type Catalog struct {
	Items []Item `json:"items"`
}

// NewCatalog is a catalog of n items, about 70 bytes of JSON each.
func NewCatalog(n int) Catalog {
	c := Catalog{Items: make([]Item, n)}
	for i := range c.Items {
		c.Items[i] = Item{ID: i, Name: "item number " + strconv.Itoa(i), Price: 100 + i, Tags: []string{"a", "bb", "ccc"}}
	}
	return c
}

// Answer is what the route answers: about 2 KiB of JSON.
var Answer = NewCatalog(29)

const (
	// Path is the route.
	Path = "/catalog"
	// Origin is the origin both stacks allow.
	Origin = "https://app.example"
	// PerIP is the rate limit per client address and minute: a real
	// limit, counted on every request, that a load run from one address
	// never reaches (ten million a minute is 166,000 a second; the
	// ratelimit plugin takes at most one request a microsecond).
	PerIP = 10_000_000
)
