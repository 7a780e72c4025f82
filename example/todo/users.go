package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// user is a configured account: its name, which keys its todos in the
// database, and the bearer token that authenticates it.
type user struct {
	name, token string
}

// errBadUsers is what parseUsers fails with.
var errBadUsers = errors.New("invalid -users")

// parseUsers reads "alice:tokenA,bob:tokenB". A name cannot hold a colon
// (the first one ends it); a token may. Empty entries are skipped, so a
// trailing comma is harmless. Names and tokens must be unique: two users
// with one token could not be told apart.
func parseUsers(list string) ([]user, error) {
	var users []user
	names, tokens := map[string]bool{}, map[string]bool{}
	for i, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, token, ok := strings.Cut(entry, ":")
		name, token = strings.TrimSpace(name), strings.TrimSpace(token)
		switch {
		case !ok:
			// The entry may be a token given alone: never repeat it.
			return nil, fmt.Errorf("%w: entry %d has no colon; want name:token", errBadUsers, i+1)
		case name == "" || token == "":
			return nil, fmt.Errorf("%w: entry %d (%q) is not name:token", errBadUsers, i+1, name+":…")
		case names[name]:
			return nil, fmt.Errorf("%w: user %q is given twice", errBadUsers, name)
		case tokens[token]:
			return nil, fmt.Errorf("%w: user %q has the token of another user", errBadUsers, name)
		}
		names[name], tokens[token] = true, true
		users = append(users, user{name: name, token: token})
	}
	return users, nil
}

// randomToken returns 32 random bytes, base64url-encoded.
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
