package static

import (
	"html/template"
	"net/http"
	"path"
	"sort"

	"github.com/burrow-go/burrow/httpx"
)

var listing = template.Must(template.New("listing").Parse(`<!doctype html>
<meta charset="utf-8"><title>{{.Dir}}</title>
<ul>{{range .Entries}}<li><a href="./{{.}}">{{.}}</a></li>{{end}}</ul>
`))

// list answers a directory listing of dir: the files and directories
// load found in it (so what the plugin serves, as it was at start-up),
// directories with a trailing slash, sorted, every name escaped.
func (sv *server) list(dir string) func(*httpx.Request, *httpx.Reply) error {
	var names []string
	for name := range sv.tree.files {
		if path.Dir(name) == dir {
			names = append(names, path.Base(name))
		}
	}
	for _, d := range sv.tree.dirs {
		if d != "." && path.Dir(d) == dir {
			names = append(names, path.Base(d)+"/")
		}
	}
	sort.Strings(names)
	page := struct {
		Dir     string
		Entries []string
	}{sv.cfg.prefix + "/" + pathJoin(dir, ""), names}
	return func(req *httpx.Request, rep *httpx.Reply) error {
		rep.Type("text/html; charset=utf-8").SetHeader("Cache-Control", "no-cache")
		rep.Code(http.StatusOK)
		return listing.Execute(rep.Raw(), page)
	}
}

func pathJoin(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
