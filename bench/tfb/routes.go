package main

import (
	"context"
	"html/template"
	"net/http"
	"strconv"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// maxQueries is the most rows /queries and /updates answer.
const maxQueries = 500

// routes serves TechEmpower's six test types. It needs the *database
// service, which the db plugin provides beside it. A registration that
// fails is reported by Ready, naming the route.
func routes(s *app.Server) error {
	app.Get(s, "/json", helloJSON)
	app.Get(s, "/plaintext", helloText)
	app.Get(s, "/db", oneRow)
	app.Get(s, "/queries", someRows)
	app.Get(s, "/updates", updatedRows)
	return app.Get(s, "/fortunes", fortunesPage, app.RespondsAs(http.StatusOK, "text/html", nil))
}

// message is /json's reply, a value encoded anew on every request.
type message struct {
	Message string `json:"message"`
}

func helloJSON(context.Context, struct{}) (message, error) {
	return message{Message: "Hello, World!"}, nil
}

// helloText answers text/plain; charset=utf-8, as a string Out does.
func helloText(context.Context, struct{}) (string, error) { return "Hello, World!", nil }

// store is the input of the routes that only read the database.
type store struct {
	app.In
	DB *database
}

// oneRow answers a pointer: the row is allocated once, where a value
// would be copied again into the reply's interface.
func oneRow(_ context.Context, in store) (*world, error) {
	w := new(world)
	if err := in.DB.readWorld(w); err != nil {
		return nil, err
	}
	return w, nil
}

// rowsIn is the input of /queries and /updates. queries is read as text
// and clamped, not validated: TechEmpower's rules answer a missing,
// empty, non-integer or small value with 1 row and a large one with 500,
// never with a 400.
type rowsIn struct {
	app.In
	Queries string `query:"queries"`
	DB      *database
}

// count is the number of rows asked for, clamped to 1..maxQueries.
func (in rowsIn) count() int {
	n, err := strconv.Atoi(in.Queries)
	if err != nil || n < 1 {
		return 1
	}
	return min(n, maxQueries)
}

func someRows(_ context.Context, in rowsIn) ([]world, error) {
	return in.DB.randomWorlds(in.count())
}

func updatedRows(_ context.Context, in rowsIn) ([]world, error) {
	return in.DB.updateWorlds(in.count())
}

// fortunesTemplate is TechEmpower's page, without whitespace between the
// tags; html/template escapes the messages.
var fortunesTemplate = template.Must(template.New("fortunes").Parse(
	`<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>` +
		`{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>{{end}}</table></body></html>`))

// pageIn is the input of /fortunes. A typed route's Out is written as
// JSON, text or bytes, each with its own content type; an HTML page is
// none of them, so the handler takes the reply and writes the page
// itself, as code written for net/http would. Out is then not sent.
type pageIn struct {
	app.In
	DB    *database
	Reply *httpx.Reply
}

func fortunesPage(_ context.Context, in pageIn) (struct{}, error) {
	list, err := in.DB.fortunes()
	if err != nil {
		return struct{}{}, err
	}
	in.Reply.Type("text/html; charset=utf-8")
	return struct{}{}, fortunesTemplate.Execute(in.Reply.Raw(), list)
}
