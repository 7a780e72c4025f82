package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	_ "modernc.org/sqlite" // pure-Go SQLite, driver "sqlite"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// Cache lifetimes of production-stack's cache-aside reads.
const (
	itemTTL = time.Second
	userTTL = 30 * time.Second
)

// pragmas of every SQLite connection: WAL, no fsync, as the peers use.
const pragmas = "_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)"

const (
	selectItem = "SELECT id, name, category, price, quantity, active, rating_score, rating_count FROM items WHERE id = ?"
	updateItem = "UPDATE items SET name = ?, price = ?, quantity = ? WHERE id = ?"
	selectUser = "SELECT id, name, email, plan FROM users WHERE id = ?"
)

// stackItem is the JSON of GET /api/items/:id.
type stackItem struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Price    int    `json:"price"`
	Quantity int    `json:"quantity"`
	Active   bool   `json:"active"`
	Rating   rating `json:"rating"`
}

// user is the JSON of GET /api/me.
type user struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	Plan  string `json:"plan"`
}

// errNoRow: the id names no row; the routes answer 404.
var errNoRow = errors.New("no such row")

// bg is the context of the data calls: like the peers, they do not take
// the request's.
var bg = context.Background()

// stack is production-stack's data side: SQLite (a pool of readers, one
// writer, statements prepared once) and Redis, a service of the /api
// context.
type stack struct {
	rdb              *redis.Client
	read, write      *sql.DB
	selItem, selUser *sql.Stmt
	updItem          *sql.Stmt
}

// openStack opens DIR/arena.db and connects to Redis.
func openStack(dir, redisURL string) (*stack, error) {
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("reading the Redis URL: %w", err)
	}
	st := &stack{rdb: redis.NewClient(opt)}
	if err := st.rdb.Ping(bg).Err(); err != nil {
		st.close()
		return nil, fmt.Errorf("reaching Redis: %w", err)
	}
	dsn := filepath.Join(dir, "arena.db") + "?" + pragmas
	if st.read, err = sql.Open("sqlite", dsn); err == nil {
		st.write, err = sql.Open("sqlite", dsn)
	}
	if err != nil {
		st.close()
		return nil, err
	}
	n := 4 * runtime.GOMAXPROCS(0)
	st.read.SetMaxOpenConns(n)
	st.read.SetMaxIdleConns(n)
	st.write.SetMaxOpenConns(1)
	if st.selItem, err = st.read.Prepare(selectItem); err == nil {
		if st.selUser, err = st.read.Prepare(selectUser); err == nil {
			st.updItem, err = st.write.Prepare(updateItem)
		}
	}
	if err != nil {
		st.close()
		return nil, fmt.Errorf("preparing the statements on %s: %w", filepath.Join(dir, "arena.db"), err)
	}
	return st, nil
}

func (st *stack) close() {
	for _, c := range []interface{ Close() error }{st.selItem, st.selUser, st.updItem, st.read, st.write} {
		if c != nil && !isNil(c) {
			c.Close()
		}
	}
	st.rdb.Close()
}

// isNil tells a typed nil in an interface: an unprepared *sql.Stmt.
func isNil(c interface{ Close() error }) bool {
	switch v := c.(type) {
	case *sql.Stmt:
		return v == nil
	case *sql.DB:
		return v == nil
	}
	return false
}

// cached is a cache-aside read: the JSON in Redis under key, or load's
// value encoded and stored there for ttl.
func (st *stack) cached(key string, ttl time.Duration, load func() (any, error)) (body []byte, hit bool, err error) {
	if body, err = st.rdb.Get(bg, key).Bytes(); err == nil {
		return body, true, nil
	} else if err != redis.Nil {
		return nil, false, err
	}
	v, err := load()
	if err != nil {
		return nil, false, err
	}
	if body, err = json.Marshal(v); err != nil {
		return nil, false, err
	}
	return body, false, st.rdb.Set(bg, key, body, ttl).Err()
}

func (st *stack) item(id int) ([]byte, bool, error) {
	return st.cached("item:"+strconv.Itoa(id), itemTTL, func() (any, error) {
		var it stackItem
		var active int
		err := st.selItem.QueryRow(id).Scan(&it.ID, &it.Name, &it.Category, &it.Price, &it.Quantity, &active,
			&it.Rating.Score, &it.Rating.Count)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errNoRow
		}
		it.Active = active != 0
		return &it, err
	})
}

func (st *stack) user(id int) ([]byte, bool, error) {
	return st.cached("user:"+strconv.Itoa(id), userTTL, func() (any, error) {
		var u user
		err := st.selUser.QueryRow(id).Scan(&u.ID, &u.Name, &u.Email, &u.Plan)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errNoRow
		}
		return &u, err
	})
}

func (st *stack) update(id int, u *itemUpdate) error {
	res, err := st.updItem.Exec(u.Name, u.Price, u.Quantity, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errNoRow
	}
	return st.rdb.Del(bg, "item:"+strconv.Itoa(id)).Err()
}

// The token check: HS256 over "header.payload" with the secret, the
// payload's sub (a string or a number) the user; nothing cached, and exp
// not read, as the benchmark's identity service does not.

// tokenCheck is the /api context's OnRequest hook: it runs before any
// body is read, and puts the user id in the request's "user" value.
func tokenCheck(secret []byte) func(*httpx.Request) error {
	return func(req *httpx.Request) error {
		id, ok := verify(secret, req.Header("Authorization"))
		if !ok {
			return httpx.Errorf(http.StatusUnauthorized, "a valid bearer token is required")
		}
		return req.SetDecorator("user", id)
	}
}

// verify returns the user id of a valid "Bearer header.payload.signature".
func verify(secret []byte, authorization string) (int, bool) {
	tok, ok := strings.CutPrefix(authorization, "Bearer ")
	if !ok {
		return 0, false
	}
	dot := strings.LastIndexByte(tok, '.')
	first := strings.IndexByte(tok, '.')
	if first < 0 || dot == first {
		return 0, false
	}
	sig, err := base64.RawURLEncoding.DecodeString(tok[dot+1:])
	if err != nil {
		return 0, false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(tok[:dot]))
	if !hmac.Equal(mac.Sum(nil), sig) {
		return 0, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(tok[first+1 : dot])
	if err != nil {
		return 0, false
	}
	var claims struct {
		Sub json.RawMessage `json:"sub"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return 0, false
	}
	sub := strings.Trim(string(claims.Sub), `"`)
	id, err := strconv.Atoi(sub)
	return id, err == nil && id > 0
}

// idIn is the input of the item routes.
type idIn struct {
	app.In
	ID    int `path:"id"`
	Stack *stack
	Reply *httpx.Reply
}

// itemUpdate is the body of POST /api/items/:id.
type itemUpdate struct {
	Name     string `json:"name"`
	Price    int    `json:"price"`
	Quantity int    `json:"quantity"`
}

type updateIn struct {
	idIn
	Body itemUpdate `body:""`
}

type meIn struct {
	app.In
	User  int `name:"user"`
	Stack *stack
	Reply *httpx.Reply
}

// storedJSON is JSON as Redis holds it: written as it is, through
// httpx.JSONAppender, not encoded again.
type storedJSON []byte

// AppendJSON appends the stored bytes.
func (j storedJSON) AppendJSON(dst []byte) ([]byte, error) { return append(dst, j...), nil }

// sendCached writes a cache-aside read: the JSON as it was stored, and
// X-Cache saying where it came from.
func sendCached(rep *httpx.Reply, body []byte, hit bool, err error) (storedJSON, error) {
	if errors.Is(err, errNoRow) {
		return nil, httpx.Errorf(http.StatusNotFound, "no such item")
	}
	if err != nil {
		return nil, err
	}
	if hit {
		rep.Header().Set("X-Cache", "HIT")
	} else {
		rep.Header().Set("X-Cache", "MISS")
	}
	return body, nil
}

func getItem(_ context.Context, in idIn) (storedJSON, error) {
	body, hit, err := in.Stack.item(in.ID)
	return sendCached(in.Reply, body, hit, err)
}

func me(_ context.Context, in meIn) (storedJSON, error) {
	body, hit, err := in.Stack.user(in.User)
	return sendCached(in.Reply, body, hit, err)
}

func postItem(_ context.Context, in updateIn) (app.NoContent, error) {
	if err := in.Stack.update(in.ID, &in.Body); errors.Is(err, errNoRow) {
		return app.NoContent{}, httpx.Errorf(http.StatusNotFound, "no such item")
	} else if err != nil {
		return app.NoContent{}, err
	}
	return app.NoContent{}, nil
}
