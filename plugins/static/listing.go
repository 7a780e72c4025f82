package static

import (
	"html/template"
	"io/fs"
	"net/http"
	"sort"

	"github.com/burrow-go/burrow/httpx"
)

var listing = template.Must(template.New("listing").Parse(`<!doctype html>
<meta charset="utf-8"><title>{{.Dir}}</title>
<ul>{{range .Entries}}<li><a href="./{{.}}">{{.}}</a></li>{{end}}</ul>
`))

// list answers a directory listing of dir: its entries the plugin
// serves, directories with a trailing slash, sorted, every name escaped.
func (sv *server) list(dir string) func(*httpx.Request, *httpx.Reply) error {
	return func(req *httpx.Request, rep *httpx.Reply) error {
		entries, err := fs.ReadDir(sv.fsys, dir)
		if err != nil {
			return err
		}
		var names []string
		for _, e := range entries {
			name := e.Name()
			if hidden(name, sv.cfg) {
				continue
			}
			if e.IsDir() {
				name += "/"
			} else if sv.tree.files[pathJoin(dir, name)] == nil {
				continue // a precompressed sibling, or what load left out
			}
			names = append(names, name)
		}
		sort.Strings(names)
		rep.Type("text/html; charset=utf-8").SetHeader("Cache-Control", "no-cache")
		rep.Code(http.StatusOK)
		w := rep.Raw()
		return listing.Execute(w, struct {
			Dir     string
			Entries []string
		}{sv.cfg.prefix + "/" + pathJoin(dir, ""), names})
	}
}

func pathJoin(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
