package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/gin-gonic/gin/binding"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v4"

	"github.com/burrow-go/burrow/app"
)

// The peer benchmark's input workload (WORKLOAD=input) in process: POST
// /echo with a valid 121-byte body, echoed, and with a body missing
// "message", refused with a 400. Each peer is built as its server in the
// peer benchmark is: the same groups and request values around
// the route, the same decoding and validation in the handler, so that
// the allocations compared are what a request costs each of them.
const (
	echoValid   = `{"message":"Typed input: decode this JSON body, validate it and send the same object back.","tags":["go","json","bench"]}`
	echoInvalid = `{"tags":["go","json","bench"]}`
)

const (
	maxMessage  = 280
	maxTags     = 5
	contentType = "application/json; charset=utf-8"
)

// echoBody is what each peer declares, with its framework's tags.
type echoBody struct {
	Message string   `json:"message" validate:"required,max=280" binding:"required,max=280"`
	Tags    []string `json:"tags,omitempty" validate:"max=5" binding:"max=5"`
}

// echoIn is Burrow's input struct for the route, as the example declares it.
type echoIn struct {
	app.In
	Body echoBody `body:""`
}

// values are the request values (decorators) of the peers' groups.
type values struct {
	Answer int    `json:"answer"`
	Foo    string `json:"foo,omitempty"`
}

type errorBody struct {
	Error string `json:"error"`
}

type valuesKey struct{}

// withValues and decorate are the shared net/http middleware of the
// nethttp and chi peers: one set of values per request, filled by each
// group.
func withValues(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), valuesKey{}, &values{})))
	})
}

func decorate(set func(*values)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			set(r.Context().Value(valuesKey{}).(*values))
			next.ServeHTTP(w, r)
		})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func isJSON(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

// nethttpEcho is the hand-written handler: encoding/json through
// MaxBytesReader (1 MiB, Burrow's default limit), checks by hand.
func nethttpEcho(w http.ResponseWriter, r *http.Request) {
	if !isJSON(r.Header.Get("Content-Type")) {
		writeJSON(w, http.StatusUnsupportedMediaType, errorBody{"unsupported media type"})
		return
	}
	var b echoBody
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&b); err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody{"invalid JSON body: " + err.Error()})
		return
	}
	var problems []string
	if b.Message == "" {
		problems = append(problems, "message is required")
	} else if utf8.RuneCountInString(b.Message) > maxMessage {
		problems = append(problems, "message must be at most 280 characters")
	}
	if len(b.Tags) > maxTags {
		problems = append(problems, "tags must have at most 5 items")
	}
	if problems != nil {
		writeJSON(w, http.StatusBadRequest, errorBody{strings.Join(problems, ", ")})
		return
	}
	writeJSON(w, http.StatusOK, &b)
}

type inputPeer struct {
	name  string
	build func(tb testing.TB) http.Handler
}

var inputPeers = []inputPeer{
	{"burrow", func(tb testing.TB) http.Handler {
		s := app.New()
		s.DecorateRequest("answer", 42)
		s.Register(func(p *app.Server) error {
			p.DecorateRequest("foo", "foo")
			return app.Post(p, "/echo", func(_ context.Context, in echoIn) (echoBody, error) { return in.Body, nil })
		}, app.Name("publicContext"))
		if err := s.Ready(); err != nil {
			tb.Fatal(err)
		}
		return s
	}},
	{"nethttp", func(testing.TB) http.Handler {
		mux := http.NewServeMux()
		h := withValues(decorate(func(v *values) { v.Answer = 42 })(
			decorate(func(v *values) { v.Foo = "foo" })(http.HandlerFunc(nethttpEcho))))
		mux.Handle("POST /echo", h)
		return mux
	}},
	{"chi", func(testing.TB) http.Handler {
		validate := validator.New(validator.WithRequiredStructEnabled())
		r := chi.NewRouter()
		r.Use(withValues, decorate(func(v *values) { v.Answer = 42 }))
		r.Group(func(public chi.Router) {
			public.Use(decorate(func(v *values) { v.Foo = "foo" }))
			public.With(middleware.AllowContentType("application/json")).Post("/echo", func(w http.ResponseWriter, r *http.Request) {
				var b echoBody
				// What go-chi/render's DecodeJSON does.
				if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
					writeJSON(w, http.StatusBadRequest, errorBody{err.Error()})
					return
				}
				if err := validate.Struct(&b); err != nil {
					writeJSON(w, http.StatusBadRequest, errorBody{err.Error()})
					return
				}
				writeJSON(w, http.StatusOK, &b)
			})
		})
		return r
	}},
	{"gin", func(testing.TB) http.Handler {
		gin.SetMode(gin.ReleaseMode)
		r := gin.New()
		r.Use(func(c *gin.Context) { c.Set("answer", 42) })
		public := r.Group("", func(c *gin.Context) { c.Set("foo", "foo") })
		public.POST("/echo", func(c *gin.Context) {
			if c.ContentType() != binding.MIMEJSON {
				c.AbortWithStatusJSON(http.StatusUnsupportedMediaType, gin.H{"error": "unsupported media type"})
				return
			}
			var b echoBody
			if err := c.ShouldBindJSON(&b); err != nil {
				c.AbortWithStatusJSON(http.StatusBadRequest, gin.H{"error": err.Error()})
				return
			}
			c.JSON(http.StatusOK, &b)
		})
		return r
	}},
	{"echo", func(testing.TB) http.Handler {
		e := echo.New()
		e.Validator = echoValidator{validator.New(validator.WithRequiredStructEnabled())}
		set := func(key string, value any) echo.MiddlewareFunc {
			return func(next echo.HandlerFunc) echo.HandlerFunc {
				return func(c echo.Context) error { c.Set(key, value); return next(c) }
			}
		}
		e.Use(set("answer", 42))
		public := e.Group("", set("foo", "foo"))
		public.POST("/echo", func(c echo.Context) error {
			var b echoBody
			if err := c.Bind(&b); err != nil {
				return err
			}
			if err := c.Validate(&b); err != nil {
				return err
			}
			body, err := json.Marshal(&b)
			if err != nil {
				return err
			}
			return c.Blob(http.StatusOK, contentType, body)
		})
		return e
	}},
}

type echoValidator struct{ v *validator.Validate }

func (ev echoValidator) Validate(i any) error {
	if err := ev.v.Struct(i); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, err.Error())
	}
	return nil
}

// rereadBody is a request body rewound by the benchmark loop, so that
// sending it again allocates nothing.
type rereadBody struct{ bytes.Reader }

func (*rereadBody) Close() error { return nil }

// recorder keeps the status and the body of the last answer.
type recorder struct {
	h      http.Header
	status int
	body   []byte
}

func (w *recorder) Header() http.Header { return w.h }
func (w *recorder) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
}

func (w *recorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body = append(w.body, p...)
	return len(p), nil
}

func (w *recorder) reset() { clear(w.h); w.status, w.body = 0, w.body[:0] }

// SetReadDeadline and SetWriteDeadline are what net/http's ResponseWriter
// offers: a peer that bounds body reads and reply writes pays for it.
func (w *recorder) SetReadDeadline(time.Time) error  { return nil }
func (w *recorder) SetWriteDeadline(time.Time) error { return nil }

// post answers body through h; the recorder and the request are reused.
type post struct {
	h    http.Handler
	data []byte
	body *rereadBody
	req  *http.Request
	w    *recorder
}

func newPost(h http.Handler, body string) *post {
	p := &post{h: h, data: []byte(body), body: &rereadBody{}, w: &recorder{h: http.Header{}}}
	p.req = httptest.NewRequest("POST", "/echo", nil)
	p.req.Header.Set("Content-Type", "application/json")
	p.req.Body, p.req.ContentLength = p.body, int64(len(p.data))
	return p
}

func (p *post) do() {
	p.w.reset()
	p.body.Reset(p.data)
	p.h.ServeHTTP(p.w, p.req)
}

func benchInput(b *testing.B, body string) {
	for _, peer := range inputPeers {
		b.Run(peer.name, func(b *testing.B) {
			p := newPost(peer.build(b), body)
			b.ReportAllocs()
			for b.Loop() {
				p.do()
			}
		})
	}
}

// BenchmarkEcho is POST /echo with the valid body through every peer.
func BenchmarkEcho(b *testing.B) { benchInput(b, echoValid) }

// BenchmarkEchoInvalid is POST /echo with the body missing "message".
func BenchmarkEchoInvalid(b *testing.B) { benchInput(b, echoInvalid) }

// TestEveryPeerAnswersTheInputWorkload guards the comparison: every peer
// echoes the valid body and refuses the invalid one, twice through the
// same reused request (as the benchmarks send it).
func TestEveryPeerAnswersTheInputWorkload(t *testing.T) {
	for _, peer := range inputPeers {
		for _, tc := range []struct {
			body   string
			status int
		}{{echoValid, http.StatusOK}, {echoInvalid, http.StatusBadRequest}} {
			p := newPost(peer.build(t), tc.body)
			for range 2 {
				p.do()
				if p.w.status != tc.status {
					t.Errorf("%s: %s answered %d %s; want %d", peer.name, tc.body, p.w.status, p.w.body, tc.status)
				}
				if tc.status == http.StatusOK && strings.TrimSpace(string(p.w.body)) != echoValid {
					t.Errorf("%s: echoed %s; want %s", peer.name, p.w.body, echoValid)
				}
			}
		}
	}
}
