package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
	"github.com/burrow-go/burrow/plugins/jwt"
)

// tokens signs the API's JWTs: HS256 with the server's secret, the
// user's id as subject, valid for tokenTTL. plugins/jwt verifies them,
// with the same secret as its one key: HS256 is then the only algorithm
// a token can use, so none can choose its own ("none", or RS256 with the
// secret as a public key).
type tokens struct {
	secret []byte
}

const tokenTTL = 24 * time.Hour

func newTokens(secret []byte) *tokens { return &tokens{secret: secret} }

func (t *tokens) issue(userID int64) (string, error) {
	now := time.Now()
	claims := map[string]any{"sub": strconv.FormatInt(userID, 10), "iat": now.Unix(), "exp": now.Add(tokenTTL).Unix()}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signed, err := jws.Sign(payload, jws.WithKey(jwa.HS256(), t.secret))
	return string(signed), err
}

// maxToken bounds the Authorization header's token: conduit's own are
// about 150 bytes.
const maxToken = 4096

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
	Claims *jwt.Claims[struct{}]
}

// readViewer builds the request's viewer from the claims plugins/jwt
// verified in "Authorization: Token <jwt>": nil claims, no header. A
// header that is there but wrong is refused by the plugin with a 401,
// even where auth is optional: a client that meant to authenticate and
// failed should know.
func readViewer(_ context.Context, in viewerIn) (viewer, func(bool) error, error) {
	if in.Claims == nil {
		return viewer{}, nil, nil
	}
	id, err := strconv.ParseInt(in.Claims.Subject, 10, 64)
	if err != nil {
		return viewer{}, nil, errUnauthorized
	}
	_, token, _ := strings.Cut(in.Req.Header("Authorization"), " ")
	return viewer{ID: id, Token: strings.TrimSpace(token)}, nil, nil
}

// needUser is the onRequest hook of the routes that need a user.
func needUser(v viewer) error {
	if v.ID == 0 {
		return errUnauthorized
	}
	return nil
}

// authPlugin verifies tokens and provides the tokens and each request's
// viewer to the API. Wrapped, like the database.
func authPlugin(t *tokens) *app.Plugin {
	return app.Wrap(func(s *app.Server) error {
		if err := s.Register(jwt.Plugin[struct{}](jwt.Secret(t.secret), jwt.Scheme("Token"), jwt.Optional(),
			jwt.MaxTokenSize(maxToken))); err != nil {
			return err
		}
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
