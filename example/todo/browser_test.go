package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/burrow-go/burrow/internal/testbin"
)

// browserLimit bounds a browser test: only a hang reaches it.
const browserLimit = 2 * time.Minute

// browser starts a headless Chromium for t, with a fresh profile, and
// returns the context of its first tab. Without Chromium the test is
// skipped, unless CI is set.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := testbin.LookPath(t, "chromium", "chromium", "chromium-browser", "google-chrome")
	// Chromium's helpers may still write to the profile for a moment
	// after the browser stops: its removal is retried, never a failure.
	profile, err := os.MkdirTemp("", "todo-chromium-")
	require.NoError(t, err)
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	// As root without network: no sandbox, and none of the browser's own
	// connections (updates, sync, QUIC probes), which would be refused.
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(profile),
	)
	ctx, cancelTime := context.WithTimeout(context.Background(), browserLimit)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelTime()
	})
	// Start the browser now, on a context without a deadline of its own.
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate("about:blank")))
	return tab
}

// pageLog is what a tab reported that a working page never does.
type pageLog struct {
	mu       sync.Mutex
	problems []string
	urls     []string // every request the page made
}

func (l *pageLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.problems = append(l.problems, fmt.Sprintf(format, args...))
}

// watch records, for tab, uncaught exceptions, console.error calls, CSP
// violations, and documents, scripts and style sheets that failed to
// load (the page's own fetch calls may fail: a 401 says "log in").
func watch(t *testing.T, tab context.Context) *pageLog {
	t.Helper()
	l := &pageLog{}
	type request struct {
		typ network.ResourceType
		url string
	}
	requests := map[network.RequestID]request{}
	require.NoError(t, chromedp.Listen(tab, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			l.add("uncaught exception: %s", (&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error())
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				l.add("console.error: %s", strings.Join(args, " "))
			}
		case *network.EventRequestWillBeSent:
			l.mu.Lock()
			l.urls = append(l.urls, ev.Request.URL)
			requests[ev.RequestID] = request{ev.Type, ev.Request.URL}
			l.mu.Unlock()
		case *network.EventResponseReceived:
			if loaded(ev.Type) && ev.Response.Status >= 400 {
				l.add("%s %s: %d", ev.Type, ev.Response.URL, ev.Response.Status)
			}
		case *network.EventLoadingFailed:
			l.mu.Lock()
			r := requests[ev.RequestID]
			l.mu.Unlock()
			if loaded(r.typ) || loaded(ev.Type) {
				l.add("%s %s failed to load: %s %s", ev.Type, r.url, ev.ErrorText, ev.BlockedReason)
			}
		}
	}))
	// The page's CSP violations, reported as console errors.
	_, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `document.addEventListener('securitypolicyviolation', (e) =>
			console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + e.blockedURI));`,
	})
	require.NoError(t, err)
	return l
}

// loaded reports whether a resource of type typ failing is the page's
// failure: a document, a script or a style sheet.
func loaded(typ network.ResourceType) bool {
	return typ == network.ResourceTypeDocument || typ == network.ResourceTypeScript || typ == network.ResourceTypeStylesheet
}

// logInPage opens s's page and logs in as user with token, until the
// list's form shows.
func logInPage(s *service, user, token string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Navigate(s.base+"/"),
		chromedp.WaitVisible(chromedp.CSS("form#login")),
		chromedp.SendKeys(chromedp.CSS(`form#login input[name="user"]`), user),
		chromedp.SendKeys(chromedp.CSS(`form#login input[name="token"]`), token),
		chromedp.Click(chromedp.CSS(`form#login button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS("form#new-todo")),
	)
}

// TestBrowser: in headless Chromium, the page logs in (a session
// cookie), adds a todo, ticks it off, is still logged in after a reload,
// and logs out — with no uncaught exception, console error, CSP
// violation or failed load, and nothing loaded from another origin.
func TestBrowser(t *testing.T) {
	tab := browser(t)
	s := startUsers(t)
	log := watch(t, tab)
	visible := func(sel string) chromedp.Action[chromedp.Void] { return chromedp.WaitVisible(chromedp.CSS(sel)) }

	require.NoError(t, chromedp.Do(tab,
		logInPage(s, "alice", "tokenA"),
		visible("button#logout"),
		chromedp.SendKeys(chromedp.CSS(`form#new-todo input[name="title"]`), "Buy milk"),
		chromedp.Click(chromedp.CSS(`form#new-todo button[type="submit"]`)),
		visible("ul#todos li"),
	))
	items, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`[...document.querySelectorAll('ul#todos li')].map((li) => li.textContent.trim())`))
	require.NoError(t, err)
	assert.Equal(t, []string{"Buy milk"}, items)
	a := s.do(t, "GET", "/todos", alice, "", "")
	assert.Equal(t, `[{"id":1,"title":"Buy milk","done":false}]`, a.body, "created for alice")

	// Tick it: the page PATCHes the todo.
	require.NoError(t, chromedp.Do(tab, chromedp.Click(chromedp.CSS(`ul#todos li input[type="checkbox"]`))))
	require.Eventually(t, func() bool { // on a goroutine of its own: send, not do
		a, err := s.send("GET", "/todos/1", alice, "", "")
		return err == nil && a.body == `{"id":1,"title":"Buy milk","done":true}`
	}, browserLimit, 20*time.Millisecond, "the tick reaches the server")

	// A reload: still logged in, the box ticked.
	require.NoError(t, chromedp.Do(tab, chromedp.Reload(), visible("form#new-todo"), visible("ul#todos li")))
	ticked, err := chromedp.Run(tab, chromedp.Evaluate[[]bool](`[...document.querySelectorAll('ul#todos li input[type=checkbox]')].map((b) => b.checked)`))
	require.NoError(t, err)
	assert.Equal(t, []bool{true}, ticked)

	// The page holds no credential a script could read: the cookie is
	// HttpOnly, and the token is nowhere in the page's storage.
	seen, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.cookie + JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.documentElement.outerHTML`))
	require.NoError(t, err)
	assert.NotContains(t, seen, "tokenA")
	assert.NotContains(t, seen, sessionCookie)

	// Log out: the login form again, and again after a reload.
	require.NoError(t, chromedp.Do(tab,
		chromedp.Click(chromedp.CSS("button#logout")),
		visible("form#login"),
		chromedp.Reload(),
		visible("form#login"),
	))
	hidden, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.querySelector('form#new-todo').closest('[hidden]') !== null`))
	require.NoError(t, err)
	assert.True(t, hidden, "the list is hidden once logged out")
	cookies, err := chromedp.Call(tab, network.GetCookies, network.GetCookiesParams{URLs: []string{s.base + "/"}})
	require.NoError(t, err)
	for _, c := range cookies.Cookies {
		assert.NotEqual(t, sessionCookie, c.Name, "the session cookie is gone")
	}

	log.mu.Lock()
	defer log.mu.Unlock()
	assert.Empty(t, log.problems)
	require.NotEmpty(t, log.urls)
	for _, u := range log.urls {
		assert.True(t, strings.HasPrefix(u, s.base+"/"), "loaded from another origin: %s", u)
	}
}

// TestBrowserCrossOrigin: a page of an origin -cors-origins names may
// call the API with a token (its preflight passes); a page of any other
// origin may not.
func TestBrowserCrossOrigin(t *testing.T) {
	tab := browser(t)
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>another origin</title>")
	})
	allowed, other := httptest.NewServer(page), httptest.NewServer(page)
	defer allowed.Close()
	defer other.Close()
	s := start(t, env(), zap.NewNop(), "-users", users, "-cors-origins", allowed.URL)
	require.Equal(t, 201, s.do(t, "POST", "/todos", alice, jsonType, `{"title":"shared"}`).status)

	// The answers, or the name of the error fetch failed with, one call
	// after the other.
	calls := fmt.Sprintf(`(async () => {
		const api = %[1]q, auth = %[2]q, json = 'application/json';
		const calls = [
			() => fetch(api + '/todos', {headers: {Authorization: auth}}).then((r) => r.json()).then((l) => 'list ' + l.length),
			() => fetch(api + '/todos/1', {method: 'PATCH', headers: {Authorization: auth, 'Content-Type': json},
				body: JSON.stringify({done: true})}).then((r) => 'patch ' + r.status),
			() => fetch(api + '/todos', {method: 'POST', headers: {Authorization: auth, 'Content-Type': json},
				body: JSON.stringify({title: 'from ' + location.origin})}).then((r) => 'create ' + r.status + ' ' + r.headers.get('Location')),
			() => fetch(api + '/healthz').then((r) => 'health ' + r.status),
		];
		const results = [];
		for (const call of calls) {
			results.push(await call().catch((e) => 'refused: ' + e.name));
		}
		return results;
	})()`, s.base, alice)

	got, err := chromedp.Run(tab, then(chromedp.Navigate(allowed.URL), chromedp.Evaluate[[]string](calls, chromedp.EvalAwaitPromise)))
	require.NoError(t, err)
	assert.Equal(t, []string{"list 1", "patch 200", "create 201 /todos/2", "health 200"}, got)

	got, err = chromedp.Run(tab, then(chromedp.Navigate(other.URL), chromedp.Evaluate[[]string](calls, chromedp.EvalAwaitPromise)))
	require.NoError(t, err)
	for _, r := range got {
		assert.Equal(t, "refused: TypeError", r)
	}
	a := s.do(t, "GET", "/todos", alice, "", "")
	assert.Equal(t, `[{"id":1,"title":"shared","done":true},{"id":2,"title":"from `+allowed.URL+`","done":false}]`, a.body,
		"the other origin's PATCH and POST, refused at their preflight, never reached the handlers")
}

// then runs first, then returns what next returns.
func then[T any](first chromedp.Action[chromedp.Void], next chromedp.Action[T]) chromedp.Action[T] {
	return func(ctx context.Context, t *chromedp.Target) (T, error) {
		if _, err := first(ctx, t); err != nil {
			var zero T
			return zero, err
		}
		return next(ctx, t)
	}
}

// TestBrowserWatchSeesProblems: the checks TestBrowser relies on catch
// each problem they look for, on a page that has them all.
func TestBrowserWatchSeesProblems(t *testing.T) {
	tab := browser(t)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Security-Policy", "default-src 'self'")
			fmt.Fprint(w, `<!doctype html><title>bad</title><link rel="stylesheet" href="/missing.css">`+
				`<script src="/app.js"></script><script>console.log("inline, blocked")</script>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `console.error("an error"); null.boom;`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer bad.Close()
	log := watch(t, tab)
	require.NoError(t, chromedp.Do(tab, chromedp.Navigate(bad.URL)))
	want := []string{"console.error: \"an error\"", "uncaught exception", "CSP violation: script-src", "Stylesheet " + bad.URL + "/missing.css"}
	require.Eventually(t, func() bool {
		log.mu.Lock()
		defer log.mu.Unlock()
		all := strings.Join(log.problems, "\n")
		for _, w := range want {
			if !strings.Contains(all, w) {
				return false
			}
		}
		return true
	}, browserLimit, 20*time.Millisecond, "every problem is seen")
}

// TestBrowserLiveUpdates: two tabs of one browser, logged in as alice;
// a todo added in one appears in the other without a reload, and so do
// changes a program makes through the API — with no problem logged.
func TestBrowserLiveUpdates(t *testing.T) {
	first := browser(t)
	s := startUsers(t)
	second, cancel := chromedp.NewContext(first) // a second tab of the same browser
	t.Cleanup(cancel)
	logs := []*pageLog{watch(t, first)}
	visible := func(sel string) chromedp.Action[chromedp.Void] { return chromedp.WaitVisible(chromedp.CSS(sel)) }
	require.NoError(t, chromedp.Do(first, logInPage(s, "alice", "tokenA")))
	require.NoError(t, chromedp.Do(second, chromedp.Navigate("about:blank")))
	logs = append(logs, watch(t, second))
	require.NoError(t, chromedp.Do(second, chromedp.Navigate(s.base+"/"), visible("form#new-todo"))) // the session's cookie
	// The second tab follows the changes once its stream is open; a
	// change made before that shows at its first read of the list, so
	// either way the todo appears.
	require.NoError(t, chromedp.Do(first,
		chromedp.SendKeys(chromedp.CSS(`form#new-todo input[name="title"]`), "Buy milk"),
		chromedp.Click(chromedp.CSS(`form#new-todo button[type="submit"]`)),
	))
	titles := `[...document.querySelectorAll('ul#todos li')].map((li) => li.textContent.trim()).join(',')`
	waitFor := func(tab context.Context, want string) {
		t.Helper()
		require.NoError(t, chromedp.Do(tab, chromedp.Poll[chromedp.Void](titles+` === `+fmt.Sprintf("%q", want), chromedp.WithPollingInterval(20*time.Millisecond))),
			"the tab shows %q", want)
	}
	waitFor(second, "Buy milk")
	// A program's changes: created, ticked, deleted, in both tabs.
	require.Equal(t, http.StatusCreated, s.do(t, "POST", "/todos", alice, jsonType, `{"title":"Eggs"}`).status)
	waitFor(first, "Buy milk,Eggs")
	waitFor(second, "Buy milk,Eggs")
	require.Equal(t, http.StatusNoContent, s.do(t, "DELETE", "/todos/1", alice, "", "").status)
	waitFor(first, "Eggs")
	waitFor(second, "Eggs")
	// Bob's todos are not alice's: they never appear, and her next change does.
	require.Equal(t, http.StatusCreated, s.do(t, "POST", "/todos", bob, jsonType, `{"title":"Bob's"}`).status)
	require.Equal(t, http.StatusCreated, s.do(t, "POST", "/todos", alice, jsonType, `{"title":"Jam"}`).status)
	waitFor(second, "Eggs,Jam")

	for _, l := range logs {
		l.mu.Lock()
		assert.Empty(t, l.problems)
		l.mu.Unlock()
	}
}
