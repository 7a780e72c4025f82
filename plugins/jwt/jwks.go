package jwt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Limits and intervals of fetching an issuer's keys.
const (
	// maxDocument bounds a discovery document or a JWK set read.
	maxDocument = 1 << 20
	// fetchTimeout bounds one fetch, discovery included.
	fetchTimeout = 10 * time.Second
	// unknownKidGap is the least time between two fetches that tokens
	// naming unknown keys cause, however many arrive.
	unknownKidGap = time.Second
	// The background refresh follows the JWK set answer's caching
	// headers, within these bounds, and refreshes after defaultRefresh
	// when they say nothing.
	minRefresh     = time.Minute
	maxRefresh     = 24 * time.Hour
	defaultRefresh = 15 * time.Minute
	// A failed fetch is retried after firstRetry, doubling up to
	// maxRetry.
	firstRetry = time.Second
	maxRetry   = 5 * time.Minute
)

// remote holds the keys of an issuer: fetched from its JWK set (found
// through OpenID discovery, or given), kept until a fetch succeeds
// again, so tokens signed with known keys keep verifying while the
// issuer is down.
type remote struct {
	issuer  string // the discovery document must name it; "" when jwksURL is given
	jwksURL string // set by discovery; only the fetching goroutine writes it
	client  *http.Client
	now     func() time.Time
	// wait waits d or until ctx ends, and says whether d passed: the
	// background refresh sleeps through it (tests replace it).
	wait func(ctx context.Context, d time.Duration) bool
	log  *zap.Logger

	keys atomic.Pointer[keySet]

	mu       sync.Mutex
	inflight chan struct{} // closed when the running fetch ends; nil when none runs
	last     time.Time     // when the last fetch started
	lastErr  error
	lifetime time.Duration // of the last key set fetched

	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newRemote(issuer, jwksURL string, client *http.Client) *remote {
	ctx, cancel := context.WithCancel(context.Background())
	return &remote{issuer: issuer, jwksURL: jwksURL, client: client, now: time.Now, wait: sleep,
		log: zap.NewNop(), ctx: ctx, cancel: cancel}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// start runs the background refresh until stop.
func (r *remote) start() {
	r.wg.Add(1)
	go r.run()
}

// stop ends the background refresh and waits for the fetches running.
func (r *remote) stop() {
	r.mu.Lock() // begin starts no fetch once this is done
	r.cancel()
	r.mu.Unlock()
	r.wg.Wait()
}

// run fetches the keys now, then again when their caching headers say,
// or after a failure with a growing delay.
func (r *remote) run() {
	defer r.wg.Done()
	retry := firstRetry
	for {
		done := r.begin(true)
		select {
		case <-done:
		case <-r.ctx.Done():
			return
		}
		r.mu.Lock()
		err, next := r.lastErr, r.lifetime
		r.mu.Unlock()
		if err != nil {
			next, retry = retry, min(2*retry, maxRetry)
		} else {
			retry = firstRetry
		}
		if !r.wait(r.ctx, next) {
			return
		}
	}
}

// find returns the keys for kid. For an unknown kid, or before any key
// set was fetched, it fetches the key set again first, unless a fetch started less than unknownKidGap ago:
// then it waits for the running fetch, if any, or gives up at once.
func (r *remote) find(ctx context.Context, kid string) []*key {
	set := r.keys.Load()
	if ks := set.find(kid); len(ks) > 0 {
		return ks
	}
	if kid == "" && set != nil {
		return nil // a token that names no key cannot say that the set changed
	}
	done := r.begin(false)
	if done == nil {
		return nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil
	case <-r.ctx.Done():
		return nil
	}
	return r.keys.Load().find(kid)
}

// begin starts a fetch unless one runs, and returns the channel closed
// when the fetch running ends. Asked for by a token (scheduled false),
// it starts none within unknownKidGap of the last start, and returns
// nil then if none runs.
func (r *remote) begin(scheduled bool) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inflight != nil {
		return r.inflight
	}
	now := r.now()
	if !scheduled && !r.last.IsZero() && now.Sub(r.last) < unknownKidGap {
		return nil
	}
	if r.ctx.Err() != nil {
		return nil
	}
	done := make(chan struct{})
	r.inflight, r.last = done, now
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		lifetime, err := r.fetch()
		if err != nil {
			r.log.Warn("cannot fetch the issuer's keys; those fetched before stay in use", zap.Error(err))
		}
		r.mu.Lock()
		r.lastErr, r.inflight = err, nil
		if err == nil {
			r.lifetime = lifetime
		}
		r.mu.Unlock()
		close(done)
	}()
	return done
}

// fetch gets the key set (after the discovery document, the first
// time) and keeps it; it returns how long the answer may be cached.
func (r *remote) fetch() (time.Duration, error) {
	ctx, cancel := context.WithTimeout(r.ctx, fetchTimeout)
	defer cancel()
	if r.jwksURL == "" {
		u, err := r.discover(ctx)
		if err != nil {
			return 0, err
		}
		r.jwksURL = u
	}
	body, h, err := r.get(ctx, r.jwksURL)
	if err != nil {
		return 0, err
	}
	set, err := parseSet(body)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", r.jwksURL, err)
	}
	r.keys.Store(set)
	return lifetime(h, r.now()), nil
}

// discover reads the issuer's OpenID discovery document and returns its
// jwks_uri. The document must name the issuer it was asked of (OpenID
// Connect Discovery §4.3), or a wrong document would choose the keys.
func (r *remote) discover(ctx context.Context) (string, error) {
	body, _, err := r.get(ctx, discoveryURL(r.issuer))
	if err != nil {
		return "", err
	}
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", fmt.Errorf("the discovery document of %s cannot be read: %w", r.issuer, err)
	}
	if doc.Issuer != r.issuer {
		return "", fmt.Errorf("the discovery document of %s names the issuer %q", r.issuer, doc.Issuer)
	}
	if err := checkURL(doc.JWKSURI); err != nil {
		return "", fmt.Errorf("the discovery document of %s has no usable jwks_uri: %w", r.issuer, err)
	}
	return doc.JWKSURI, nil
}

// discoveryURL is where issuer's discovery document is.
func discoveryURL(issuer string) string {
	return strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"
}

// get fetches u, at most maxDocument bytes of it.
func (r *remote) get(ctx context.Context, u string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := r.client.Do(req) // #nosec G704 -- the URL is the issuer's, from the plugin's options or its discovery document
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("GET %s answered %s", u, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxDocument+1))
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if len(body) > maxDocument {
		return nil, nil, fmt.Errorf("GET %s answered more than %d bytes", u, maxDocument)
	}
	return body, res.Header, nil
}

// lifetime is how long a JWK set answer may be used before the next
// fetch: its Cache-Control max-age, or its Expires, within minRefresh
// and maxRefresh; defaultRefresh when it says neither.
func lifetime(h http.Header, now time.Time) time.Duration {
	d, ok := maxAge(h.Get("Cache-Control"))
	if !ok {
		if exp, err := http.ParseTime(h.Get("Expires")); err == nil {
			base := now
			if date, err := http.ParseTime(h.Get("Date")); err == nil {
				base = date
			}
			d, ok = exp.Sub(base), true
		}
	}
	if !ok {
		return defaultRefresh
	}
	return min(max(d, minRefresh), maxRefresh)
}

// maxAge reads the max-age directive of a Cache-Control value; no-cache
// and no-store count as 0.
func maxAge(cc string) (time.Duration, bool) {
	found := false
	var d time.Duration
	for part := range strings.SplitSeq(cc, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch strings.ToLower(name) {
		case "no-cache", "no-store":
			return 0, true
		case "max-age":
			n, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64)
			if err != nil || n < 0 {
				continue
			}
			d, found = time.Duration(min(n, int64(maxRefresh/time.Second)))*time.Second, true
		}
	}
	return d, found
}

// checkURL accepts absolute http and https URLs.
func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("not an absolute http or https URL")
	}
	return nil
}
