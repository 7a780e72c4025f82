package main

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/ratelimit"
)

// userBody is the API's user: the caller's own account, with its token.
// bio and image are null when unset, never left out.
type userBody struct {
	Email    string  `json:"email"`
	Token    string  `json:"token"`
	Username string  `json:"username"`
	Bio      *string `json:"bio"`
	Image    *string `json:"image"`
}

type userReply struct {
	User userBody `json:"user"`
}

type registerIn struct {
	app.In
	Body struct {
		User struct {
			Username string `json:"username" validate:"required,max=64"`
			Email    string `json:"email" validate:"required,format=email,max=256"`
			Password string `json:"password" validate:"required,min=8,max=72"`
		} `json:"user"`
	} `body:""`
	Tx     tx
	Tokens *tokens
}

type loginIn struct {
	app.In
	Body struct {
		User struct {
			Email    string `json:"email" validate:"required,max=256"`
			Password string `json:"password" validate:"required,max=72"`
		} `json:"user"`
	} `body:""`
	Tx     tx
	Tokens *tokens
}

type meIn struct {
	app.In
	Viewer viewer
	Tx     tx
}

type updateUserIn struct {
	app.In
	Body struct {
		User struct {
			Username *string `json:"username" validate:"min=1,max=64"`
			Email    *string `json:"email" validate:"min=1,format=email,max=256"`
			Password *string `json:"password" validate:"min=8,max=72"`
			Bio      *string `json:"bio" validate:"max=4096"`
			Image    *string `json:"image" validate:"max=2048,format=weblink"` // rendered as an img src: http or https only
		} `json:"user"`
	} `body:""`
	Viewer viewer
	Tx     tx
}

// loginsPerMinute is how many log-in attempts one client address may make
// a minute.
const loginsPerMinute = 10

// usersPlugin serves registration, login and the caller's account.
func usersPlugin(s *app.Server) error {
	app.Post(s, "/users", register, app.Tags("users"), app.Summary("Register"))
	// Log-in guesses a password: its own context spends a budget per
	// client address, failed attempts included.
	s.Register(func(s *app.Server) error {
		s.Register(ratelimit.Plugin(ratelimit.Limit(ratelimit.Policy{
			Name: "login", Limit: loginsPerMinute, Window: time.Minute, Key: ratelimit.ByIP(),
		})))
		return app.Post(s, "/users/login", login, app.Tags("users"), app.Summary("Log in"))
	}, app.Name("login"))
	return s.Register(func(s *app.Server) error {
		s.Register(requireUser)
		app.Get(s, "/user", currentUser, app.Tags("users"), app.Summary("The caller's account"))
		return app.Put(s, "/user", updateUser, app.Tags("users"), app.Summary("Update the caller's account"))
	}, app.Name("account"))
}

func register(ctx context.Context, in registerIn) (app.Created[userReply], error) {
	u := in.Body.User
	hash, err := hashPassword(u.Password)
	if err != nil {
		return app.Created[userReply]{}, err
	}
	if err := taken(ctx, in.Tx, u.Username, u.Email, 0); err != nil {
		return app.Created[userReply]{}, err
	}
	var id int64
	err = in.Tx.QueryRowContext(ctx, in.Tx.q(`INSERT INTO users (username, email, password_hash) VALUES (?, ?, ?) RETURNING id`),
		u.Username, strings.ToLower(u.Email), string(hash)).Scan(&id)
	if err != nil {
		return app.Created[userReply]{}, err
	}
	token, err := in.Tokens.issue(id)
	if err != nil {
		return app.Created[userReply]{}, err
	}
	return app.Created[userReply]{Value: userReply{userBody{Email: strings.ToLower(u.Email), Username: u.Username, Token: token}}}, nil
}

// maxPasswordBytes is as much of a password as bcrypt hashes. The
// field's max=72 counts characters, of up to four bytes each: a password
// of 72 characters may not fit.
const maxPasswordBytes = 72

// errPasswordTooLong refuses such a password as the field rules refuse
// one too long, with a 422 naming the field.
var errPasswordTooLong = &httpx.Error{StatusCode: http.StatusUnprocessableEntity,
	Message:    "body/user/password must NOT have more than 72 bytes",
	Validation: []httpx.FieldError{{Path: "body/user/password", Rule: "max", Message: "must NOT have more than 72 bytes"}}}

// hashPassword hashes a new password, refusing one bcrypt cannot hash.
func hashPassword(p string) ([]byte, error) {
	if len(p) > maxPasswordBytes {
		return nil, errPasswordTooLong
	}
	return bcrypt.GenerateFromPassword([]byte(p), bcrypt.DefaultCost)
}

// errLogin is the one answer to a wrong email or password: it does not
// tell which.
var errLogin = conflictLike("email or password", "is invalid")

func login(ctx context.Context, in loginIn) (userReply, error) {
	var (
		id   int64
		hash string
		u    userBody
	)
	err := in.Tx.QueryRowContext(ctx, in.Tx.q(`SELECT id, username, email, bio, image, password_hash FROM users WHERE email = ?`),
		strings.ToLower(in.Body.User.Email)).Scan(&id, &u.Username, &u.Email, &u.Bio, &u.Image, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		hash = dummyHash // as slow as a real check, so timing tells nothing
	} else if err != nil {
		return userReply{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(in.Body.User.Password)) != nil || id == 0 {
		return userReply{}, errLogin
	}
	if u.Token, err = in.Tokens.issue(id); err != nil {
		return userReply{}, err
	}
	return userReply{u}, nil
}

// dummyHash is compared against when the email is unknown.
var dummyHash, _ = func() (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte("not a password"), bcrypt.DefaultCost)
	return string(h), err
}()

func currentUser(ctx context.Context, in meIn) (userReply, error) {
	u, err := loadUser(ctx, in.Tx, in.Viewer.ID)
	if err != nil {
		return userReply{}, err
	}
	u.Token = in.Viewer.Token
	return userReply{u}, nil
}

func updateUser(ctx context.Context, in updateUserIn) (userReply, error) {
	u := in.Body.User
	var hash []byte
	if u.Password != nil {
		var err error
		if hash, err = hashPassword(*u.Password); err != nil {
			return userReply{}, err
		}
	}
	if u.Username != nil || u.Email != nil {
		name, email := "", ""
		if u.Username != nil {
			name = *u.Username
		}
		if u.Email != nil {
			email = *u.Email
		}
		if err := taken(ctx, in.Tx, name, email, in.Viewer.ID); err != nil {
			return userReply{}, err
		}
	}
	set := func(column string, v any) error {
		_, err := in.Tx.ExecContext(ctx, in.Tx.q(`UPDATE users SET `+column+` = ? WHERE id = ?`), v, in.Viewer.ID)
		return err
	}
	var err error
	if u.Username != nil {
		err = errors.Join(err, set("username", *u.Username))
	}
	if u.Email != nil {
		err = errors.Join(err, set("email", strings.ToLower(*u.Email)))
	}
	if u.Bio != nil {
		err = errors.Join(err, set("bio", *u.Bio))
	}
	if u.Image != nil {
		err = errors.Join(err, set("image", *u.Image))
	}
	if hash != nil {
		err = errors.Join(err, set("password_hash", string(hash)))
	}
	if err != nil {
		return userReply{}, err
	}
	return currentUser(ctx, meIn{Viewer: in.Viewer, Tx: in.Tx})
}

// taken answers 422 when username or email (each when not empty) belongs
// to a user other than self.
func taken(ctx context.Context, t tx, username, email string, self int64) error {
	var fields []string
	if username != "" {
		var n int
		if err := t.QueryRowContext(ctx, t.q(`SELECT COUNT(*) FROM users WHERE username = ? AND id <> ?`), username, self).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fields = append(fields, "username")
		}
	}
	if email != "" {
		var n int
		if err := t.QueryRowContext(ctx, t.q(`SELECT COUNT(*) FROM users WHERE email = ? AND id <> ?`), strings.ToLower(email), self).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			fields = append(fields, "email")
		}
	}
	if len(fields) > 0 {
		return conflict(fields...)
	}
	return nil
}

func loadUser(ctx context.Context, t tx, id int64) (userBody, error) {
	var u userBody
	err := t.QueryRowContext(ctx, t.q(`SELECT username, email, bio, image FROM users WHERE id = ?`), id).
		Scan(&u.Username, &u.Email, &u.Bio, &u.Image)
	if errors.Is(err, sql.ErrNoRows) {
		return u, errUnauthorized // the token's user was deleted
	}
	return u, err
}
