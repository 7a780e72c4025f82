package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// Limits of POST /todos/import.
const (
	maxImportBytes = 1 << 20 // the file part; past it, 413 whatever the rows
	maxImportRows  = 1000
	// maxImportBody bounds the whole multipart body: the file, and room
	// for the part headers and boundaries around it.
	maxImportBody = maxImportBytes + 16<<10
)

// importTodos is POST /todos/import's input: a multipart/form-data body
// with the CSV file in its part "file". The file is read (to a temporary
// file past the memory limit, removed when the request ends) before the
// handler runs, after the auth hook: an unknown caller's upload is not
// read.
type importTodos struct {
	app.In
	File  *app.File `form:"file" validate:"required"`
	Todos todos
}

// imported is POST /todos/import's answer.
type imported struct {
	Created int `json:"created"`
}

// importFile creates the todos of the file, in the request's
// transaction: a title already used, or used twice in the file, fails
// the request (409), and the transaction's cleanup rolls back what was
// created before it — all or none. Registered with app.Status(201).
func importFile(ctx context.Context, in importTodos) (imported, error) {
	f, err := in.File.Open()
	if err != nil {
		return imported{}, err
	}
	defer f.Close()
	rows, err := readImport(f)
	if err != nil {
		return imported{}, err
	}
	for _, n := range rows {
		if _, err := in.Todos.create(ctx, n.Title, n.Done); err != nil {
			return imported{}, err
		}
	}
	return imported{Created: len(rows)}, nil
}

// importRoute registers POST /todos/import: a file of up to 1 MiB (413
// past it, whatever its rows, and nothing read beyond the limit).
func importRoute(s *app.Server, conflict app.RouteOption) error {
	return app.Post(s, "/todos/import", importFile, app.Status(http.StatusCreated), conflict,
		app.BodyLimit(maxImportBody),
		app.WithMultipartLimits(app.MultipartLimits{FileBytes: maxImportBytes, Parts: 10}),
		app.Summary("Create todos from a CSV file (header title,done), all or none"))
}

// importField is the path of the file in the validation answers, where
// Burrow puts a form field.
const importField = "body/file"

// readImport reads a CSV file of todos: the header row title,done, then
// one row per todo, done true, false or empty (false). A row may leave
// out the done column. Any fault is a 400 in the validation shape,
// naming the line: a missing or other header, a title the API would
// refuse, a done that is not a boolean, more than maxImportRows rows.
// Titles repeated within the file are the store's to refuse (409), as
// in a batch.
func readImport(r io.Reader) ([]newTodo, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // checked here, with a clearer message
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, importError("required", "must have the header row title,done")
	}
	if err != nil {
		return nil, csvError(err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\uFEFF") // a spreadsheet's byte order mark
	}
	if len(header) != 2 || strings.TrimSpace(header[0]) != "title" || strings.TrimSpace(header[1]) != "done" {
		return nil, importError("header", "must begin with the header row title,done")
	}
	var todos []newTodo
	for {
		row, err := cr.Read()
		if err == io.EOF {
			return todos, nil
		}
		if err != nil {
			return nil, csvError(err)
		}
		line, _ := cr.FieldPos(0)
		if len(todos) == maxImportRows {
			return nil, importError("maxItems", fmt.Sprintf("must NOT have more than %d rows", maxImportRows))
		}
		if len(row) > 2 {
			return nil, importError("csv", fmt.Sprintf("line %d: must have the columns title,done, not %d", line, len(row)))
		}
		title := row[0]
		if n := utf8.RuneCountInString(title); n == 0 || n > 200 || !utf8.ValidString(title) {
			return nil, importError("title", fmt.Sprintf("line %d: the title must have 1 to 200 characters", line))
		}
		var done bool
		if len(row) == 2 {
			switch strings.TrimSpace(row[1]) {
			case "true":
				done = true
			case "false", "":
			default:
				return nil, importError("done", fmt.Sprintf("line %d: done must be true, false or empty", line))
			}
		}
		todos = append(todos, newTodo{Title: title, Done: done})
	}
}

// importError is the 400 of a file that is not a list of todos.
func importError(rule, msg string) error {
	return fieldError(httpx.FieldError{Path: importField, Rule: rule, Message: msg})
}

// csvError is the 400 of a file that is not CSV.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return importError("csv", fmt.Sprintf("line %d: %v", pe.Line, pe.Err))
	}
	return err // the body could not be read: the framework's to answer
}
