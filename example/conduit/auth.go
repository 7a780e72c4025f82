package main

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

// tokens makes and reads the API's JWTs: HS256 with the server's secret,
// the user's id as subject, valid for tokenTTL. golang-jwt/jwt is the
// library the Go ecosystem settled on; it is told to accept HS256 only,
// so a token cannot choose its own algorithm ("none", or RS256 with the
// secret as a public key).
type tokens struct {
	secret []byte
	parser *jwt.Parser
}

const tokenTTL = 24 * time.Hour

func newTokens(secret []byte) *tokens {
	return &tokens{secret: secret, parser: jwt.NewParser(
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(30*time.Second),
	)}
}

func (t *tokens) issue(userID int64) (string, error) {
	now := time.Now()
	return jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject:   strconv.FormatInt(userID, 10),
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(tokenTTL)),
	}).SignedString(t.secret)
}

func (t *tokens) userID(token string) (int64, error) {
	var claims jwt.RegisteredClaims
	if _, err := t.parser.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return t.secret, nil }); err != nil {
		return 0, err
	}
	return strconv.ParseInt(claims.Subject, 10, 64)
}

// viewer is who sends a request: the user whose token it carries, or
// nobody (ID 0) without an Authorization header. Handlers of routes
// where auth is optional take it to say "following" and "favorited";
// the routes that need a user have the needUser hook.
type viewer struct {
	ID    int64
	Token string
}

var errUnauthorized = httpx.NewError(http.StatusUnauthorized, "UNAUTHORIZED", "missing or invalid token")

type viewerIn struct {
	app.In
	Req    *httpx.Request
	Tokens *tokens
}

// readViewer builds the request's viewer from "Authorization: Token
// <jwt>". A header that is there but wrong is a 401 even where auth is
// optional: a client that meant to authenticate and failed should know.
func readViewer(_ context.Context, in viewerIn) (viewer, func(bool) error, error) {
	h := in.Req.Header("Authorization")
	if h == "" {
		return viewer{}, nil, nil
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Token") || len(token) > 4096 {
		return viewer{}, nil, errUnauthorized
	}
	id, err := in.Tokens.userID(strings.TrimSpace(token))
	if err != nil {
		return viewer{}, nil, errUnauthorized
	}
	return viewer{ID: id, Token: token}, nil, nil
}

// needUser is the onRequest hook of the routes that need a user.
func needUser(v viewer) error {
	if v.ID == 0 {
		return errUnauthorized
	}
	return nil
}

// authPlugin provides the tokens and each request's viewer to the API.
// Wrapped, like the database.
func authPlugin(t *tokens) *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if err := s.Decorate(t); err != nil {
			return err
		}
		return s.ProvideRequest(app.Provider(readViewer))
	}, app.Name("auth"))
}

// requireUser guards the context that registers it: its routes answer
// 401 without a valid token, before any input is read, and their
// descriptions say they need one. Each feature keeps the routes that
// need a user in a child context of its own that registers it.
var requireUser = app.Wrap(func(s *app.Server) error {
	if err := s.DeclareSecurity(app.SecurityScheme{Name: "Token", Type: "apiKey", In: "header", ParamName: "Authorization",
		Description: `"Token <jwt>": the token a login or a registration answers with`}); err != nil {
		return err
	}
	return s.AddHook(app.OnRequest, needUser)
}, app.Name("require-user"))
