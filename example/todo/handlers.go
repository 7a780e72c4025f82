package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/bearer"
	"github.com/burrow-go/burrow/httpx"
)

// Limits of the contract.
const (
	defaultLimit = 20
	maxBatch     = 50
)

// caller is the authenticated user and the database, as every todo
// route needs them. Identity is set by bearer-auth's hook; a route that
// could not see it (or the database) would stop the server at start-up.
type caller struct {
	app.In
	Identity bearer.Identity `name:"identity"`
	Users    userIDs
	DB       *sql.DB
}

// todos returns the caller's todos, read and written through q.
func (c caller) todos(q querier) (todos, error) {
	i := c.Identity.Index
	if !c.Identity.Authenticated || i < 0 || i >= len(c.Users) {
		// Only a route outside the auth plugin's context could get here.
		return todos{}, errors.New("the request has no authenticated user")
	}
	return todos{q: q, user: c.Users[i]}, nil
}

// listQuery is GET /todos's query. Pointers tell absent from zero: an
// absent limit is the default, an explicit limit=0 is out of range.
type listQuery struct {
	Limit  *int  `query:"limit" validate:"min=1,max=100"`
	Offset *int  `query:"offset" validate:"min=0"`
	Done   *bool `query:"done"`
}

func listTodos(ctx context.Context, q app.Query[listQuery], c caller) ([]todo, error) {
	t, err := c.todos(c.DB)
	if err != nil {
		return nil, err
	}
	limit, offset := defaultLimit, 0
	if q.Value.Limit != nil {
		limit = *q.Value.Limit
	}
	if q.Value.Offset != nil {
		offset = *q.Value.Offset
	}
	return t.list(ctx, limit, offset, q.Value.Done)
}

// newTodo is the body of POST /todos and an item of POST /todos/batch.
type newTodo struct {
	Title string `json:"title" validate:"required,min=1,max=200"`
	Done  bool   `json:"done"`
}

func createTodo(ctx context.Context, b app.Body[newTodo], c caller, rep *httpx.Reply) error {
	t, err := c.todos(c.DB)
	if err != nil {
		return err
	}
	td, err := t.create(ctx, b.Value.Title, b.Value.Done)
	if err != nil {
		return err
	}
	return rep.Code(http.StatusCreated).SetHeader("Location", location(td.ID)).Send(td)
}

func location(id int64) string { return "/todos/" + strconv.FormatInt(id, 10) }

// createBatch creates every todo of the body in one transaction: one
// title already used (or used twice in the batch) rolls them all back.
func createBatch(ctx context.Context, b app.Body[[]newTodo], c caller, rep *httpx.Reply) error {
	if n := len(b.Value); n < 1 || n > maxBatch {
		return batchSizeError(n)
	}
	tx, err := c.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op once committed
	t, err := c.todos(tx)
	if err != nil {
		return err
	}
	created := make([]todo, len(b.Value))
	for i, n := range b.Value {
		if created[i], err = t.create(ctx, n.Title, n.Done); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return rep.Code(http.StatusCreated).Send(created)
}

// batchSizeError is the 400 for a batch of n todos, in the shape of
// Burrow's validation errors: the size of a body that is an array has no
// tag to carry its rule.
func batchSizeError(n int) error {
	f := httpx.FieldError{Path: "body", Rule: "min", Message: "must NOT have fewer than 1 items"}
	if n > maxBatch {
		f = httpx.FieldError{Path: "body", Rule: "max", Message: fmt.Sprintf("must NOT have more than %d items", maxBatch)}
	}
	return &httpx.Error{StatusCode: http.StatusBadRequest, Code: "FST_ERR_VALIDATION",
		Message: f.Path + " " + f.Message, Validation: []httpx.FieldError{f}}
}

// todoID is the :id of the routes of one todo: a positive integer.
type todoID struct {
	ID int64 `param:"id" validate:"min=1"`
}

func getTodo(ctx context.Context, p app.Params[todoID], c caller) (todo, error) {
	t, err := c.todos(c.DB)
	if err != nil {
		return todo{}, err
	}
	return t.get(ctx, p.Value.ID)
}

// todoPatch is the body of PATCH /todos/:id: a field left out (or null)
// is left as it is.
type todoPatch struct {
	Title *string `json:"title" validate:"min=1,max=200"`
	Done  *bool   `json:"done"`
}

func patchTodo(ctx context.Context, p app.Params[todoID], b app.Body[todoPatch], c caller) (todo, error) {
	if b.Value.Title == nil && b.Value.Done == nil {
		f := httpx.FieldError{Path: "body", Rule: "minProperties", Message: "must have title or done"}
		return todo{}, &httpx.Error{StatusCode: http.StatusBadRequest, Code: "FST_ERR_VALIDATION",
			Message: f.Path + " " + f.Message, Validation: []httpx.FieldError{f}}
	}
	t, err := c.todos(c.DB)
	if err != nil {
		return todo{}, err
	}
	return t.update(ctx, p.Value.ID, b.Value.Title, b.Value.Done)
}

func deleteTodo(ctx context.Context, p app.Params[todoID], c caller, rep *httpx.Reply) error {
	t, err := c.todos(c.DB)
	if err != nil {
		return err
	}
	if err := t.remove(ctx, p.Value.ID); err != nil {
		return err
	}
	return rep.Code(http.StatusNoContent).Send(nil)
}
