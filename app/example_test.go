package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/httpx"
)

func get(s *app.Server, target string) string {
	res, err := s.Inject(httptest.NewRequest("GET", target, nil))
	if err != nil {
		return err.Error()
	}
	b, _ := io.ReadAll(res.Body)
	return fmt.Sprintf("%d %s", res.StatusCode, b)
}

// A plugin gets its own context: what it declares is visible to it and its
// descendants only. A handler declares what it needs in an In struct.
func Example() {
	type greeting struct {
		app.In
		Greeting string `name:"greeting"`
		Name     string `name:"name" optional:"true"`
	}
	hello := func(g greeting) (string, error) { return fmt.Sprintf("%s %q", g.Greeting, g.Name), nil }

	s := app.New()
	s.DecorateRequest("greeting", "hello")
	s.Register(func(s *app.Server) error {
		s.DecorateRequest("name", "ada")
		return s.Get("/inside", hello)
	}, app.Name("people"))
	s.Get("/outside", hello) // "name" is invisible here, and optional

	fmt.Println(get(s, "/inside"))
	fmt.Println(get(s, "/outside"))
	// Output:
	// 200 hello "ada"
	// 200 hello ""
}

// A wrapped plugin has no context: its declarations land in the context
// that registers it.
func ExampleWrap() {
	version := app.Wrap(func(s *app.Server) error {
		return s.DecorateRequest("version", "v1")
	}, app.Name("version"))

	type deps struct {
		app.In
		Version string `name:"version"`
	}
	s := app.New()
	s.Register(version)
	s.Get("/", func(d deps) (string, error) { return d.Version, nil })
	fmt.Println(get(s, "/"))
	// Output: 200 v1
}

// A handler that asks for what its context cannot see stops the server at
// start-up, and the error says where the value is.
func ExampleServer_Ready() {
	type needsDB struct {
		app.In
		DSN string `name:"dsn"`
	}
	s := app.New()
	s.Register(func(s *app.Server) error { return s.DecorateRequest("dsn", "postgres://") }, app.Name("db"))
	s.Register(func(s *app.Server) error {
		return s.Get("/users", func(needsDB) error { return nil })
	}, app.Name("api"))
	fmt.Println(s.Ready())
	// Output: route GET /users (root > api) needs request decorator "dsn", which is only provided in sibling context root > db
}

// Hooks run ancestors first; one that sends a reply ends the chain.
func ExampleServer_AddHook() {
	s := app.New()
	s.AddHook(app.OnRequest, func(req *httpx.Request, rep *httpx.Reply) error {
		if req.Header("X-Key") != "secret" {
			return rep.Code(401).Send(map[string]string{"error": "no key"})
		}
		return nil
	})
	s.Get("/", func() (string, error) { return "in", nil })
	fmt.Println(get(s, "/"))
	// Output: 401 {"error":"no key"}
}

// A shareable plugin states what it needs. Here "audit" is wrapped (its
// hook guards the context that registers it), depends on the "session"
// plugin and needs the "user" request decorator that plugin declares.
// Registered without them, it stops the server with a sentence naming
// what is missing.
func Example_pluginContract() {
	session := app.Wrap(func(s *app.Server) error {
		return s.DecorateRequest("user", "anonymous")
	}, app.Name("session"))

	type who struct {
		app.In
		User string `name:"user"`
	}
	audit := app.Wrap(func(s *app.Server) error {
		return s.AddHook(app.OnResponse, func(w who, req *httpx.Request) {
			fmt.Println("audit:", w.User, req.Raw().URL.Path)
		})
	}, app.Name("audit"),
		app.DependsOn("session"),
		app.NeedsDecorators("user"),
		app.Supports(">=0.4.0 <1.0.0"))

	s := app.New()
	s.Register(func(s *app.Server) error {
		s.Register(session)
		s.Register(audit)
		return s.Get("/orders", func() (string, error) { return "[]", nil })
	}, app.Name("shop"))
	fmt.Println(get(s, "/orders"))

	broken := app.New()
	broken.Register(audit)
	fmt.Println(broken.Ready())
	// Output:
	// audit: anonymous /orders
	// 200 []
	// plugin audit (root) needs plugin "session", which is not registered before it in root or an ancestor
}

// A handler takes the body as a typed, validated value; a client that
// sends something else gets a 400 listing the failing fields (the first
// 100), and the handler never runs.
func ExampleBody() {
	type signup struct {
		Name  string `json:"name" validate:"required,max=20"`
		Email string `json:"email" validate:"required,format=email"`
	}
	s := app.New()
	s.Post("/signup", func(b app.Body[signup]) (string, error) {
		return "welcome " + b.Value.Name, nil
	})
	for _, body := range []string{`{"name":"ada","email":"ada@example.com"}`, `{"email":"nope"}`} {
		req := httptest.NewRequest("POST", "/signup", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, _ := s.Inject(req)
		b, _ := io.ReadAll(res.Body)
		fmt.Println(res.StatusCode, string(b))
	}
	// Output:
	// 200 welcome ada
	// 400 {"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"body/name is required, body/email must match format \"email\"","validation":[{"path":"body/name","rule":"required","message":"is required"},{"path":"body/email","rule":"format","message":"must match format \"email\""}]}
}

// Query and path parameters decode into structs; a value that does not
// convert is a 400 naming it.
func ExampleQuery() {
	type page struct {
		Limit int      `query:"limit" validate:"min=1,max=100"`
		Tags  []string `query:"tag"`
	}
	type ids struct {
		ID int `param:"id"`
	}
	s := app.New()
	s.Get("/users/:id/posts", func(p app.Params[ids], q app.Query[page]) (string, error) {
		return fmt.Sprintf("user %d, %d posts, tags %v", p.Value.ID, q.Value.Limit, q.Value.Tags), nil
	})
	fmt.Println(get(s, "/users/7/posts?limit=10&tag=go&tag=web"))
	fmt.Println(get(s, "/users/seven/posts?limit=10"))
	// Output:
	// 200 user 7, 10 posts, tags [go web]
	// 400 {"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"params/id must be integer","validation":[{"path":"params/id","rule":"type","message":"must be integer"}]}
}

// Typed and TypedValue call a handler directly rather than through
// reflection; what it may take, and how that is checked at start-up, does
// not change.
func ExampleTyped() {
	type deps struct {
		app.In
		Answer int `name:"answer"`
	}
	type query struct {
		Name string `query:"name" validate:"required"`
	}
	s := app.New()
	s.DecorateRequest("answer", 42)
	s.Get("/answer", app.Typed(func(rep *httpx.Reply, d deps) error {
		return rep.Send(map[string]int{"answer": d.Answer})
	}))
	s.Get("/hello", app.TypedValue(func(q app.Query[query]) (string, error) {
		return "hello " + q.Value.Name, nil
	}))

	fmt.Println(get(s, "/answer"))
	fmt.Println(get(s, "/hello?name=ada"))
	fmt.Println(get(s, "/hello"))
	// Output:
	// 200 {"answer":42}
	// 200 hello ada
	// 400 {"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"querystring/name is required","validation":[{"path":"querystring/name","rule":"required","message":"is required"}]}
}

// inventory is a service: built once, shared by every request.
type inventory struct{ stock map[string]int }

func (inv *inventory) count(item string) int { return inv.stock[item] }

// A service is provided with Decorate and received as a plain parameter
// of its type; a handler whose context provides none fails Ready.
func ExampleServer_Decorate() {
	s := app.New()
	s.Decorate(&inventory{stock: map[string]int{"apple": 3}})
	s.Get("/stock/:item", func(inv *inventory, req *httpx.Request) (string, error) {
		return fmt.Sprint(inv.count(req.Param("item"))), nil
	})
	fmt.Println(get(s, "/stock/apple"))

	bare := app.New()
	bare.Get("/stock/:item", func(*inventory) error { return nil })
	fmt.Println(bare.Ready())
	// Output:
	// 200 3
	// route GET /stock/:item (root) needs service *app_test.inventory, which no context provides
}

// An error handler answers the errors of its context's routes; one that
// fails passes the new error to its parent's, up to the default handler,
// which writes Fastify's JSON shape.
func ExampleServer_SetErrorHandler() {
	errOutOfStock := errors.New("out of stock")
	s := app.New()
	s.Register(func(shop *app.Server) error {
		shop.SetErrorHandler(func(err error, rep *httpx.Reply) error {
			if errors.Is(err, errOutOfStock) {
				return rep.Code(409).Send(map[string]string{"problem": err.Error()})
			}
			return fmt.Errorf("shop: %w", err) // the parent's handler answers
		})
		shop.Get("/buy", func() error { return errOutOfStock })
		return shop.Get("/pay", func() error { return httpx.NewError(402, "PAY_FIRST", "payment required") })
	}, app.Name("shop"))

	fmt.Println(get(s, "/buy"))
	fmt.Println(get(s, "/pay"))
	// Output:
	// 409 {"problem":"out of stock"}
	// 402 {"statusCode":402,"code":"PAY_FIRST","error":"Payment Required","message":"payment required"}
}

// A request decorator starts every request with the same value; a hook
// replaces it for one request with SetDecorator, and the handler reads
// what the hook set.
func ExampleServer_DecorateRequest() {
	type caller struct {
		app.In
		User string `name:"user"`
	}
	s := app.New()
	s.DecorateRequest("user", "anonymous")
	s.AddHook(app.OnRequest, func(req *httpx.Request) error {
		if name := req.Header("X-User"); name != "" {
			return req.SetDecorator("user", name)
		}
		return nil
	})
	s.Get("/whoami", func(c caller) (string, error) { return c.User, nil })

	req := httptest.NewRequest("GET", "/whoami", nil)
	req.Header.Set("X-User", "ada")
	res, _ := s.Inject(req)
	b, _ := io.ReadAll(res.Body)
	fmt.Println(string(b))
	fmt.Println(get(s, "/whoami"))
	// Output:
	// ada
	// 200 anonymous
}

// Inject answers a request without a socket, through the whole request
// path (hooks, typed input, the error handler), booting the server first;
// it is how tests talk to a server (see package apptest).
func ExampleServer_Inject() {
	s := app.New()
	s.Post("/echo", func(b app.Body[map[string]any]) (map[string]any, error) { return b.Value, nil })

	req := httptest.NewRequest("POST", "/echo", strings.NewReader(`{"hello":"world"}`))
	req.Header.Set("Content-Type", "application/json")
	res, err := s.Inject(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := io.ReadAll(res.Body)
	fmt.Println(res.StatusCode, res.Header.Get("Content-Type"), string(b))
	// Output: 200 application/json; charset=utf-8 {"hello":"world"}
}

// Close drains the server: PreClose hooks run while requests are still
// possible, OnClose hooks once the in-flight requests have finished, and
// Serve then returns nil.
func ExampleServer_Close() {
	s := app.New()
	s.Get("/", func() (string, error) { return "hello", nil })
	s.PreClose(func(context.Context) error { fmt.Println("preClose: stop background work"); return nil })
	s.OnClose(func(context.Context) error { fmt.Println("onClose: release the database"); return nil })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	res, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(string(b))

	fmt.Println("close:", s.Close(context.Background()))
	fmt.Println("serve:", <-served)
	fmt.Println("ready after close:", s.Ready())
	// Output:
	// hello
	// preClose: stop background work
	// onClose: release the database
	// close: <nil>
	// serve: <nil>
	// ready after close: server closed
}

// A request value is built once per request that needs it, by a
// constructor Burrow calls directly; its cleanup learns whether the
// request failed.
func ExampleProvider() {
	type cart struct{ items []string }
	type cartIn struct {
		app.In
		Req *httpx.Request
	}
	s := app.New()
	s.ProvideRequest(app.Provider(func(_ context.Context, in cartIn) (*cart, func(failed bool) error, error) {
		c := &cart{items: strings.Split(in.Req.Query("items"), ",")}
		return c, func(failed bool) error {
			fmt.Println("cart closed, failed:", failed)
			return nil
		}, nil
	}))
	type show struct {
		app.In
		Cart *cart
	}
	app.Get(s, "/cart", func(_ context.Context, in show) (int, error) { return len(in.Cart.items), nil })

	fmt.Println(get(s, "/cart?items=apple,pear"))
	// Output:
	// cart closed, failed: false
	// 200 2
}

// With WithProblemDetails, every error is answered as RFC 9457 problem
// details; the text of an error that is not an *httpx.Error stays in the
// log, as it does by default.
func ExampleWithProblemDetails() {
	type signup struct {
		Email string `json:"email" validate:"required,format=email"`
	}
	s := app.New(app.WithProblemDetails())
	s.Post("/signup", func(b app.Body[signup]) (string, error) { return "welcome", nil })
	s.Get("/plans/:id", func() error {
		return &httpx.Error{StatusCode: http.StatusGone, Code: "PLAN_RETIRED", Message: "this plan is retired",
			Type: "https://example.com/problems/plan-retired"}
	})
	s.Get("/report", func() error { return errors.New("pq: relation \"reports\" does not exist") })

	req := httptest.NewRequest("POST", "/signup", strings.NewReader(`{"email":"ada"}`))
	req.Header.Set("Content-Type", "application/json")
	res, _ := s.Inject(req)
	b, _ := io.ReadAll(res.Body)
	fmt.Println(res.Header.Get("Content-Type"))
	fmt.Printf("%d %s\n", res.StatusCode, b)
	fmt.Println(get(s, "/plans/basic"))
	fmt.Println(get(s, "/report"))
	// Output:
	// application/problem+json
	// 400 {"type":"about:blank","title":"Bad Request","status":400,"detail":"body/email must match format \"email\"","instance":"/signup","code":"FST_ERR_VALIDATION","validation":[{"path":"body/email","rule":"format","message":"must match format \"email\""}]}
	// 410 {"type":"https://example.com/problems/plan-retired","title":"Gone","status":410,"detail":"this plan is retired","instance":"/plans/basic","code":"PLAN_RETIRED"}
	// 500 {"type":"about:blank","title":"Internal Server Error","status":500,"detail":"Internal Server Error","instance":"/report"}
}

// A 5xx answering an error the handler did not make an *httpx.Error says
// its status text; the error is logged whole. An *httpx.Error's message
// was written for the client and is sent. WithServerErrorText sends
// every message, for development.
func ExampleWithServerErrorText() {
	routes := func(s *app.Server) *app.Server {
		s.Get("/report", func() error { return errors.New("pq: relation \"reports\" does not exist") })
		s.Get("/pay", func() error {
			return httpx.NewError(http.StatusServiceUnavailable, "PAYMENTS_DOWN", "payments are unavailable, try again later")
		})
		return s
	}
	prod, dev := routes(app.New()), routes(app.New(app.WithServerErrorText()))
	fmt.Println(get(prod, "/report"))
	fmt.Println(get(prod, "/pay"))
	fmt.Println(get(dev, "/report"))
	// Output:
	// 500 {"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}
	// 503 {"statusCode":503,"code":"PAYMENTS_DOWN","error":"Service Unavailable","message":"payments are unavailable, try again later"}
	// 500 {"statusCode":500,"error":"Internal Server Error","message":"pq: relation \"reports\" does not exist"}
}
