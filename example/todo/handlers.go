package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// Limits of the contract.
const (
	defaultLimit = 20
	maxBatch     = 50
)

// listQuery is GET /todos's query. Pointers tell absent from zero: an
// absent limit is the default, an explicit limit=0 is out of range.
type listQuery struct {
	Limit  *int  `query:"limit" validate:"min=1,max=100"`
	Offset *int  `query:"offset" validate:"min=0"`
	Done   *bool `query:"done"`
}

func listTodos(ctx context.Context, q app.Query[listQuery], t todos) ([]todo, error) {
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

// createTodo returns the todo rather than sending it, so the
// transaction's commit comes first and a commit that fails answers.
func createTodo(ctx context.Context, b app.Body[newTodo], t todos, rep *httpx.Reply) (todo, error) {
	td, err := t.create(ctx, b.Value.Title, b.Value.Done)
	if err != nil {
		return todo{}, err
	}
	rep.Code(http.StatusCreated).SetHeader("Location", location(td.ID))
	return td, nil
}

func location(id int64) string { return "/todos/" + strconv.FormatInt(id, 10) }

// createBatch creates every todo of the body in the request's
// transaction: a title already used (or used twice in the batch) fails
// the request, and its cleanup rolls back what was created before it.
func createBatch(ctx context.Context, b app.Body[[]newTodo], t todos, rep *httpx.Reply) ([]todo, error) {
	if n := len(b.Value); n < 1 || n > maxBatch {
		return nil, batchSizeError(n)
	}
	created := make([]todo, len(b.Value))
	for i, n := range b.Value {
		var err error
		if created[i], err = t.create(ctx, n.Title, n.Done); err != nil {
			return nil, err
		}
	}
	rep.Code(http.StatusCreated)
	return created, nil
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

func getTodo(ctx context.Context, p app.Params[todoID], t todos) (todo, error) {
	return t.get(ctx, p.Value.ID)
}

// todoPatch is the body of PATCH /todos/:id: a field left out (or null)
// is left as it is.
type todoPatch struct {
	Title *string `json:"title" validate:"min=1,max=200"`
	Done  *bool   `json:"done"`
}

func patchTodo(ctx context.Context, p app.Params[todoID], b app.Body[todoPatch], t todos) (todo, error) {
	if b.Value.Title == nil && b.Value.Done == nil {
		f := httpx.FieldError{Path: "body", Rule: "minProperties", Message: "must have title or done"}
		return todo{}, &httpx.Error{StatusCode: http.StatusBadRequest, Code: "FST_ERR_VALIDATION",
			Message: f.Path + " " + f.Message, Validation: []httpx.FieldError{f}}
	}
	return t.update(ctx, p.Value.ID, b.Value.Title, b.Value.Done)
}

// deleteTodo sets the status and returns: Burrow sends the empty 204
// after the transaction's commit.
func deleteTodo(ctx context.Context, p app.Params[todoID], t todos, rep *httpx.Reply) error {
	if err := t.remove(ctx, p.Value.ID); err != nil {
		return err
	}
	rep.Code(http.StatusNoContent)
	return nil
}
