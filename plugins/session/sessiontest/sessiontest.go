// Package sessiontest is the conformance suite every session.Store
// passes: the plugin's memory and cookie stores, the Redis store, and a
// store of your own. A revocable store is also checked over HTTP, with
// the plugin in front of it: a log-out is final whatever a request in
// flight does with the session.
package sessiontest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/burrow-go/burrow/plugins/session"
)

// Caps says what a store can do beyond the common ground.
type Caps struct {
	// Revocable: Delete makes a token unknown (false for a cookie store).
	Revocable bool
}

// Run runs the suite against stores made by newStore, one per subtest.
func Run(t *testing.T, caps Caps, newStore func(t *testing.T) session.Store) {
	ctx := context.Background()
	t.Run("SaveThenLoad", func(t *testing.T) {
		st := newStore(t)
		tok, err := st.Save(ctx, "", []byte("one"), time.Minute)
		must(t, err)
		if tok == "" {
			t.Fatal("Save of a new session returned no token")
		}
		got, err := st.Load(ctx, tok)
		must(t, err)
		equal(t, "one", string(got))
	})
	t.Run("SaveAgainReplaces", func(t *testing.T) {
		st := newStore(t)
		tok, err := st.Save(ctx, "", []byte("one"), time.Minute)
		must(t, err)
		tok2, err := st.Save(ctx, tok, []byte("two"), time.Minute)
		must(t, err)
		got, err := st.Load(ctx, tok2)
		must(t, err)
		equal(t, "two", string(got))
	})
	t.Run("NewTokensDiffer", func(t *testing.T) {
		st := newStore(t)
		seen := map[string]bool{}
		for range 100 {
			tok, err := st.Save(ctx, "", []byte("x"), time.Minute)
			must(t, err)
			if seen[tok] {
				t.Fatalf("token %q given twice", tok)
			}
			seen[tok] = true
		}
	})
	t.Run("UnknownTokens", func(t *testing.T) {
		st := newStore(t)
		for _, tok := range []string{"nope", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "a b", "%00", string(make([]byte, 300))} {
			if _, err := st.Load(ctx, tok); !errors.Is(err, session.ErrNotFound) {
				t.Errorf("Load(%.20q) = %v, want ErrNotFound", tok, err)
			}
			if lived, err := st.Delete(ctx, tok); err != nil || lived && caps.Revocable {
				t.Errorf("Delete(%.20q) = %v, %v; want false, nil", tok, lived, err)
			}
		}
	})
	t.Run("DataIsCopied", func(t *testing.T) {
		st := newStore(t)
		data := []byte("abc")
		tok, err := st.Save(ctx, "", data, time.Minute)
		must(t, err)
		data[0] = 'X'
		got, err := st.Load(ctx, tok)
		must(t, err)
		equal(t, "abc", string(got))
	})
	if caps.Revocable {
		t.Run("SaveDoesNotBringBackAnEndedSession", func(t *testing.T) {
			st := newStore(t)
			if _, err := st.Save(ctx, "never-given", []byte("x"), time.Minute); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("Save of a token never given = %v, want ErrNotFound", err)
			}
			tok, err := st.Save(ctx, "", []byte("one"), time.Minute)
			must(t, err)
			_, err = st.Delete(ctx, tok)
			must(t, err)
			if _, err := st.Save(ctx, tok, []byte("two"), time.Minute); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("Save after Delete = %v, want ErrNotFound", err)
			}
			if _, err := st.Load(ctx, tok); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("Load after a Save of a deleted token = %v, want ErrNotFound", err)
			}
		})
		t.Run("ALogOutIsFinal", func(t *testing.T) { logOutIsFinal(t, newStore) })
		t.Run("DeleteForgets", func(t *testing.T) {
			st := newStore(t)
			tok, err := st.Save(ctx, "", []byte("one"), time.Minute)
			must(t, err)
			lived, err := st.Delete(ctx, tok)
			must(t, err)
			if !lived {
				t.Fatal("Delete of a live session reported none")
			}
			if _, err := st.Load(ctx, tok); !errors.Is(err, session.ErrNotFound) {
				t.Fatalf("Load after Delete = %v, want ErrNotFound", err)
			}
			if lived, err := st.Delete(ctx, tok); err != nil || lived {
				t.Fatalf("a second Delete = %v, %v; want false, nil", lived, err)
			}
		})
		t.Run("OneOfConcurrentDeletesSeesTheSession", func(t *testing.T) {
			st := newStore(t)
			tok, err := st.Save(ctx, "", []byte("one"), time.Minute)
			must(t, err)
			var wg sync.WaitGroup
			var mu sync.Mutex
			seen := 0
			for range 8 {
				wg.Go(func() {
					lived, err := st.Delete(ctx, tok)
					if err != nil {
						t.Error(err)
					}
					if lived {
						mu.Lock()
						seen++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if seen != 1 {
				t.Fatalf("%d of 8 concurrent Deletes reported the session, want 1", seen)
			}
		})
	}
	t.Run("Expires", func(t *testing.T) {
		st := newStore(t)
		tok, err := st.Save(ctx, "", []byte("one"), 1500*time.Millisecond)
		must(t, err)
		long, err := st.Save(ctx, "", []byte("two"), time.Hour)
		must(t, err)
		// Waits for the condition, bounded; a store that never expires fails.
		deadline := time.Now().Add(30 * time.Second)
		for {
			_, err := st.Load(ctx, tok)
			if errors.Is(err, session.ErrNotFound) {
				break
			}
			must(t, err)
			if time.Now().After(deadline) {
				t.Fatal("a session saved for 1.5 s still loads after 30 s")
			}
			time.Sleep(50 * time.Millisecond) // polling interval, not a timing assertion
		}
		_, err = st.Load(ctx, long)
		must(t, err)
	})
	t.Run("Concurrent", func(t *testing.T) {
		st := newStore(t)
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for g := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 50 {
					v := fmt.Sprintf("%d-%d", g, i)
					tok, err := st.Save(ctx, "", []byte(v), time.Minute)
					if err == nil {
						var got []byte
						got, err = st.Load(ctx, tok)
						if err == nil && string(got) != v {
							err = fmt.Errorf("loaded %q, saved %q", got, v)
						}
					}
					if err == nil {
						_, err = st.Delete(ctx, tok)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func equal(t *testing.T, want, got string) {
	t.Helper()
	if want != got {
		t.Fatalf("got %q, want %q", got, want)
	}
}
