package main

import (
	"context"
	"net/http"
	"strconv"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// Each handler's input is one struct: the values it reads from the
// request, checked and converted before it runs, and the caller's todos
// (a request value: the user's rows in the request's transaction).
// Registered with app.Get, app.Post, …, each is called directly.

// listTodos is GET /todos's input.
type listTodos struct {
	app.In
	Limit  int   `query:"limit" default:"20" validate:"min=1,max=100"`
	Offset int   `query:"offset" default:"0" validate:"min=0"`
	Done   *bool `query:"done"` // absent: both
	Todos  todos
}

func list(ctx context.Context, in listTodos) ([]todo, error) {
	return in.Todos.list(ctx, in.Limit, in.Offset, in.Done)
}

// newTodo is the body of POST /todos and an item of POST /todos/batch.
type newTodo struct {
	Title string `json:"title" validate:"required,min=1,max=200"`
	Done  bool   `json:"done"`
}

type createTodo struct {
	app.In
	Body  newTodo `body:""`
	Todos todos
}

func create(ctx context.Context, in createTodo) (app.Created[todo], error) {
	td, err := in.Todos.create(ctx, in.Body.Title, in.Body.Done)
	if err != nil {
		return app.Created[todo]{}, err
	}
	return app.Created[todo]{Location: "/todos/" + strconv.FormatInt(td.ID, 10), Value: td}, nil
}

// createBatch is POST /todos/batch's input: 1 to 50 todos, a rule the
// body field carries (400 before the handler runs, and in the document).
type createBatch struct {
	app.In
	Body  []newTodo `body:"" validate:"required,min=1,max=50"`
	Todos todos
}

// batch creates every todo of the body in the request's transaction: a
// title already used (or used twice in the batch) fails the request, and
// the transaction's cleanup rolls back what was created before it.
// Registered with app.Status(201).
func batch(ctx context.Context, in createBatch) ([]todo, error) {
	created := make([]todo, len(in.Body))
	for i, n := range in.Body {
		var err error
		if created[i], err = in.Todos.create(ctx, n.Title, n.Done); err != nil {
			return nil, err
		}
	}
	return created, nil
}

// oneTodo is the input of GET /todos/:id: a positive id.
type oneTodo struct {
	app.In
	ID    int64 `path:"id" validate:"min=1"`
	Todos todos
}

func get(ctx context.Context, in oneTodo) (todo, error) {
	return in.Todos.get(ctx, in.ID)
}

// removeTodo is DELETE /todos/:id's input: the id, and If-Match.
type removeTodo struct {
	app.In
	ID    int64             `path:"id" validate:"min=1"`
	Pre   app.Preconditions `header:""`
	Todos todos
}

func remove(ctx context.Context, in removeTodo) (app.NoContent, error) {
	if err := in.Todos.checkTag(ctx, in.ID, in.Pre); err != nil {
		return app.NoContent{}, err
	}
	return app.NoContent{}, in.Todos.remove(ctx, in.ID)
}

// todoPatch is the body of PATCH /todos/:id: a field left out (or null)
// is left as it is.
type todoPatch struct {
	Title *string `json:"title" validate:"min=1,max=200"`
	Done  *bool   `json:"done"`
}

type patchTodo struct {
	app.In
	ID    int64             `path:"id" validate:"min=1"`
	Pre   app.Preconditions `header:""`
	Body  todoPatch         `body:""`
	Todos todos
}

func patch(ctx context.Context, in patchTodo) (todo, error) {
	if in.Body.Title == nil && in.Body.Done == nil {
		return todo{}, fieldError(httpx.FieldError{Path: "body", Rule: "minProperties", Message: "must have title or done"})
	}
	if err := in.Todos.checkTag(ctx, in.ID, in.Pre); err != nil {
		return todo{}, err
	}
	return in.Todos.update(ctx, in.ID, in.Body.Title, in.Body.Done)
}

// fieldError is the 400 of one failing field, as Burrow's validation
// answers.
func fieldError(f httpx.FieldError) error {
	return &httpx.Error{StatusCode: http.StatusBadRequest, Code: "FST_ERR_VALIDATION",
		Message: f.Path + " " + f.Message, Validation: []httpx.FieldError{f}}
}
