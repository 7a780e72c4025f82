package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/burrow-go/burrow/httpx"
)

// Limits of POST /todos/import.
const (
	maxImportBytes = 1 << 20 // the file part; past it, 413 whatever the rows
	maxImportRows  = 1000
)

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

