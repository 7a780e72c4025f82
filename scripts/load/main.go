// Command load is the steady authenticated load of scripts/scale-out.sh:
// example/todo's users, each by bearer token, list and create todos at a
// fixed rate until it is interrupted (SIGINT or SIGTERM) or its duration
// ends, then it prints what it got and exits 1 if any request failed — a
// transport error or a status other than 200 and 201 — or none was sent,
// or the users' budgets ran out before the end.
//
// Each user sends at most -per-user requests: set it to the servers'
// -rate-limit, and the load never meets a limit, whatever the instances
// share; give it enough users for the rate and the duration.
//
// It is its own module (standard library only), so the framework's
// go.mod and lint runs do not include it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "the service's base URL")
	users := flag.String("users", os.Getenv("TODO_USERS"), "name:token,… (env TODO_USERS)")
	rate := flag.Int("rate", 50, "requests per second")
	workers := flag.Int("workers", 8, "requests in flight at most")
	perUser := flag.Int("per-user", 10, "requests per user at most")
	duration := flag.Duration("duration", time.Minute, "how long to send, unless interrupted first")
	flag.Parse()
	var tokens []string
	for entry := range strings.SplitSeq(*users, ",") {
		if _, token, ok := strings.Cut(strings.TrimSpace(entry), ":"); ok && token != "" {
			tokens = append(tokens, token)
		}
	}
	if len(tokens) == 0 || *rate <= 0 || *workers <= 0 || *perUser <= 0 {
		fmt.Fprintln(os.Stderr, "load: want -users, and a positive -rate, -workers and -per-user")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()

	client := &http.Client{Timeout: 10 * time.Second}
	jobs := make(chan int)
	var (
		mu       sync.Mutex
		statuses = map[string]int{}
		failed   int
	)
	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() {
			for n := range jobs {
				outcome := send(client, *base, tokens[n%len(tokens)], n)
				mu.Lock()
				statuses[outcome]++
				if outcome != "200" && outcome != "201" {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	tick := time.NewTicker(time.Second / time.Duration(*rate))
	budget := len(tokens) * *perUser
	n := 0
send:
	for ; n < budget; n++ {
		select {
		case <-ctx.Done():
			break send
		case <-tick.C:
		}
		select {
		case jobs <- n:
		case <-ctx.Done():
			break send
		}
	}
	tick.Stop()
	close(jobs)
	wg.Wait()

	keys := make([]string, 0, len(statuses))
	for k := range statuses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, statuses[k])
	}
	fmt.Printf("%d requests, %d failed (%s)\n", n, failed, strings.Join(parts, ", "))
	spent := n == budget
	if spent {
		fmt.Println("every user's budget was spent before the end: give more users")
	}
	if failed > 0 || n == 0 || spent {
		os.Exit(1)
	}
}

// send makes request n as the user of token: odd ones create a todo,
// even ones list them. It returns the status, or the transport error.
func send(client *http.Client, base, token string, n int) string {
	method, body := http.MethodGet, ""
	if n%2 == 1 {
		method, body = http.MethodPost, fmt.Sprintf(`{"title":"load %d"}`, n)
	}
	req, err := http.NewRequest(method, base+"/todos", strings.NewReader(body))
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return err.Error()
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return fmt.Sprint(res.StatusCode)
}
