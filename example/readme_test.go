package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeCurl is one curl line of the README's reference-example block and
// the answer its comment prints: "# 200 {…}", "# 405 Allow: GET, HEAD",
// or a body that ends in "…", which the answer must start with.
type readmeCurl struct {
	line         string
	method, path string
	header       map[string]string
	body         string
	status       int
	want         string
	wantHeader   [2]string
	prefixOnly   bool
	hasBody      bool
}

// readmeCurls returns the curl lines of a Markdown file's block that
// starts with "go run ./example -keys k1 &".
func readmeCurls(t *testing.T, file string) []readmeCurl {
	t.Helper()
	md, err := os.ReadFile(file)
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(md), "```sh\ngo run ./example -keys k1 &\n")
	require.True(t, ok, "%s has no block starting with go run ./example -keys k1 &", file)
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)
	var out []readmeCurl
	for line := range strings.Lines(block) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		require.True(t, strings.HasPrefix(line, "curl "), "not a curl line: %s", line)
		out = append(out, parseCurl(t, line))
	}
	require.NotEmpty(t, out)
	return out
}

func parseCurl(t *testing.T, line string) readmeCurl {
	t.Helper()
	cmd, comment, ok := strings.Cut(line, "#")
	require.True(t, ok, "a curl line of the README says what it answers after #: %s", line)
	c := readmeCurl{line: line, method: "GET", header: map[string]string{}}
	words := shellWords(t, cmd)[1:]
	for i := 0; i < len(words); i++ {
		switch w := words[i]; w {
		case "-H", "-X", "-d":
			require.Less(t, i+1, len(words), "%s needs a value: %s", w, line)
			v := words[i+1]
			i++
			switch w {
			case "-H":
				k, val, _ := strings.Cut(v, ":")
				c.header[k] = strings.TrimSpace(val)
			case "-X":
				c.method = v
			case "-d":
				c.body, c.hasBody = v, true
				if c.method == "GET" {
					c.method = "POST"
				}
			}
		default:
			u, err := url.Parse("http://" + w)
			require.NoError(t, err)
			require.Equal(t, "localhost:8000", u.Host, line)
			c.path = u.RequestURI()
		}
	}
	status, want, _ := strings.Cut(strings.TrimSpace(comment), " ")
	c.status, _ = strconv.Atoi(status)
	require.NotZero(t, c.status, "the answer starts with its status: %s", line)
	if k, v, ok := strings.Cut(want, ": "); ok && !strings.HasPrefix(want, "{") {
		c.wantHeader = [2]string{k, v}
		return c
	}
	if strings.HasSuffix(want, "…") {
		want, c.prefixOnly = strings.TrimSuffix(want, "…"), true
	}
	c.want = want
	return c
}

// shellWords splits a command line at spaces, keeping single-quoted
// words whole, as the README's lines need and no more.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	in, started := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			in, started = !in, true
		case r == ' ' && !in:
			if started {
				words = append(words, w.String())
				w.Reset()
				started = false
			}
		default:
			w.WriteRune(r)
			started = true
		}
	}
	require.False(t, in, "unclosed quote: %s", s)
	if started {
		words = append(words, w.String())
	}
	return words
}

// The answers the README and the getting-started guide print for the
// reference example are the ones it gives over a socket.
func TestReadmeCurlAnswers(t *testing.T) {
	t.Parallel()
	s := build([]string{"k1"}, false, time.Second)
	require.NoError(t, s.Ready())
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	for _, file := range []string{"../README.md", "../docs/getting-started.md"} {
		for _, c := range readmeCurls(t, file) {
			t.Run(file+" "+c.method+" "+c.path, func(t *testing.T) {
				req, err := http.NewRequest(c.method, srv.URL+c.path, strings.NewReader(c.body))
				require.NoError(t, err)
				for k, v := range c.header {
					req.Header.Set(k, v)
				}
				if c.hasBody && req.Header.Get("Content-Type") == "" {
					req.Header.Set("Content-Type", "application/x-www-form-urlencoded") // curl -d's default
				}
				res, err := srv.Client().Do(req)
				require.NoError(t, err)
				defer res.Body.Close()
				b, err := io.ReadAll(res.Body)
				require.NoError(t, err)
				assert.Equal(t, c.status, res.StatusCode, c.line)
				switch {
				case c.wantHeader[0] != "":
					assert.Equal(t, c.wantHeader[1], res.Header.Get(c.wantHeader[0]), c.line)
				case c.prefixOnly:
					assert.True(t, strings.HasPrefix(string(b), c.want), "%s\nanswered %s", c.line, b)
				default:
					assert.Equal(t, c.want, string(b), c.line)
				}
			})
		}
	}
}
