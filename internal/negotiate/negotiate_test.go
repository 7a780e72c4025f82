package negotiate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEncoding(t *testing.T) {
	t.Parallel()
	offered := []string{"zstd", "br", "gzip"}
	cases := []struct {
		header []string
		want   string
	}{
		{nil, ""},
		{[]string{""}, ""},
		{[]string{"identity"}, ""},
		{[]string{"gzip"}, "gzip"},
		{[]string{"GZIP"}, "gzip"},
		{[]string{"x-gzip"}, "gzip"},
		{[]string{"gzip, deflate, br, zstd"}, "zstd"}, // Chrome's: the server's order breaks the tie
		{[]string{"gzip, deflate, br"}, "br"},
		{[]string{"br;q=0.5, gzip;q=0.8"}, "gzip"},
		{[]string{"gzip;q=0.5", "br;q=0.9"}, "br"}, // several header lines
		{[]string{"zstd;q=1.0, br;q=0.999"}, "zstd"},
		{[]string{"gzip;q=0"}, ""},
		{[]string{"gzip;q=0.000"}, ""},
		{[]string{"*;q=0"}, ""},
		{[]string{"*"}, "zstd"},
		{[]string{"*;q=0.1, gzip"}, "gzip"},
		{[]string{"gzip, *;q=0"}, "gzip"},
		{[]string{"br;q=0, *"}, "zstd"},
		{[]string{"zstd;q=0, br;q=0, *"}, "gzip"},
		{[]string{"identity, *;q=0"}, ""},
		{[]string{"deflate"}, ""},
		{[]string{"gzip;q=2"}, ""},
		{[]string{"gzip;q=1.5"}, ""},
		{[]string{"gzip;q=abc"}, ""},
		{[]string{"gzip;q=0.5555"}, ""},
		{[]string{"gzip;q=-1"}, ""},
		{[]string{"gzip ; Q = 0.5 , br;q=0.4"}, "gzip"},
		{[]string{"gzip;level=1"}, "gzip"},
		{[]string{",,, ;q=1, gzip"}, "gzip"},
	}
	for _, c := range cases {
		i := Encoding(c.header, offered)
		got := ""
		if i >= 0 {
			got = offered[i]
		}
		assert.Equal(t, c.want, got, "%q", c.header)
	}
	assert.Equal(t, -1, Encoding([]string{"gzip"}, make([]string, MaxCodings+1)))
}

func FuzzEncoding(f *testing.F) {
	f.Add("gzip;q=0.5, br, *;q=0")
	f.Fuzz(func(t *testing.T, h string) {
		i := Encoding([]string{h}, []string{"zstd", "br", "gzip"})
		if i < -1 || i > 2 {
			t.Fatalf("index %d", i)
		}
	})
}

func TestVary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ before, after []string }{
		{nil, []string{"Accept-Encoding"}},
		{[]string{"Origin"}, []string{"Origin", "Accept-Encoding"}},
		{[]string{"Origin, accept-encoding"}, []string{"Origin, accept-encoding"}},
		{[]string{"*"}, []string{"*"}},
	} {
		h := http.Header{}
		if c.before != nil {
			h["Vary"] = c.before
		}
		Vary(h)
		Vary(h)
		assert.Equal(t, c.after, h["Vary"])
	}
}
