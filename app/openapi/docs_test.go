package openapi_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/app/apptest"
	"github.com/burrow-go/burrow/app/openapi"
)

// domStub is just enough of a DOM for the docs page's script: elements
// that hold their children, class, text and id, and the page's two
// elements, #openapi (the document, from DOC) and #ops. After the script,
// it prints what #ops shows: each heading, and each operation's id.
const domStub = `
function El(tag) { this.tagName = tag; this.children = []; this.className = ""; this.textContent = ""; }
El.prototype.appendChild = function (c) { this.children.push(c); return c; };
var ops = new El("main");
var byID = { openapi: { textContent: DOC }, ops: ops };
globalThis.document = {
  getElementById: function (id) { return byID[id]; },
  createElement: function (tag) { return new El(tag); },
};
globalThis.location = { hash: "#all" };
process.on("exit", function () {
  var shown = { headings: [], ids: [] };
  (function visit(e) {
    if (e.tagName === "h2") shown.headings.push(e.textContent);
    if (e.tagName === "span" && e.className === "id") shown.ids.push(e.textContent);
    e.children.forEach(visit);
  })(ops);
  console.log(JSON.stringify(shown));
});
`

// TestDocsPageRendersTagsNamedLikeObjectMembers: the page's script, run
// by node on a stub DOM, shows every operation under its tag when tags
// are named like members every JavaScript object has ("constructor",
// "__proto__", "toString"), which a plain {} of groups would find there.
func TestDocsPageRendersTagsNamedLikeObjectMembers(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the docs page's script is not run")
	}
	s := apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{}))
	tags := []string{"constructor", "__proto__", "toString", "hasOwnProperty"}
	for i, tag := range tags {
		s.Get("/t"+string(rune('a'+i)), func() (string, error) { return "", nil }, app.Tags(tag), app.OperationID("op"+string(rune('A'+i))))
	}
	s.Get("/untagged", func() (string, error) { return "", nil }, app.OperationID("untagged"))
	headings, ids := runPage(t, node, s)
	assert.ElementsMatch(t, append(tags, "Operations"), headings)
	assert.ElementsMatch(t, []string{"opA", "opB", "opC", "opD", "untagged"}, ids)
}

// TestDocsPageRendersWhat32Adds: the page renders the 3.2 rendition, so
// it shows a QUERY operation, one under additionalOperations, a stream
// described by its items and a WebSocket's messages.
func TestDocsPageRendersWhat32Adds(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the docs page's script is not run")
	}
	s := apptest.New(t)
	s.Register(openapi.Plugin(openapi.Info{}))
	app.QueryRoute(s, "/search", func(context.Context, filterIn) ([]Match, error) { return nil, nil })
	s.Route("PURGE", "/cache", func() error { return nil })
	app.Events(s, "/pulses", func(context.Context, struct{}, *app.EventStream[Pulse]) error { return nil })
	s.Get("/chat", func() error { return nil }, app.Upgrades("websocket", Said{}, Heard{}))
	_, ids := runPage(t, node, s)
	assert.ElementsMatch(t, []string{"querySearch", "purgeCache", "getPulses", "getChat"}, ids)
}

// runPage runs the script of s's docs page under node on a stub DOM, and
// returns the headings and operation ids it shows.
func runPage(t *testing.T, node string, s *app.Server) (headings, ids []string) {
	t.Helper()
	page := apptest.Get(t, s, "/docs")
	require.Equal(t, 200, page.StatusCode)
	data := between(t, page.Body, `<script type="application/json" id="openapi">`, "</script>")
	script := between(t, page.Body, "<script>", "</script>")
	lit, err := json.Marshal(data)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "page.js")
	require.NoError(t, os.WriteFile(file, []byte("var DOC = "+string(lit)+";\n"+domStub+script), 0o600))

	out, err := exec.Command(node, file).CombinedOutput() // #nosec G204 -- node from PATH runs the test's own file
	require.NoError(t, err, "the page's script fails: %s", out)
	var shown struct{ Headings, IDs []string }
	require.NoError(t, json.Unmarshal(out, &shown), "%s", out)
	return shown.Headings, shown.IDs
}

// between is the text of s after the first start and before the end
// that follows it.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, start)
	require.True(t, ok, "no %q", start)
	in, _, ok := strings.Cut(rest, end)
	require.True(t, ok, "no %q after %q", end, start)
	return in
}
