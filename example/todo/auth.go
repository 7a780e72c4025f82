package main

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
)

// accounts are the configured users as the API authenticates them: by
// bearer token (a program) or by a session cookie (the browser page,
// after POST /session).
type accounts struct {
	users  []user
	ids    userIDs        // row id of users[i]
	byName map[string]int // index in users
	keys   [][sha256.Size]byte
}

func newAccounts(users []user, ids []int64) *accounts {
	a := &accounts{users: users, ids: ids, byName: map[string]int{}}
	for i, u := range users {
		a.byName[u.name] = i
		a.keys = append(a.keys, sha256.Sum256([]byte(u.token)))
	}
	return a
}

// account is what a session holds: the user, and a fingerprint of the
// token they logged in with, so that a session ends when the user's
// token changes (a restart with another -users).
type account struct {
	User string `json:"user"`
	Key  string `json:"key"`
}

// fingerprint is the account key of users[i]: 64 bits of the token's
// hash, which says nothing usable about the token.
func (a *accounts) fingerprint(i int) string { return hex.EncodeToString(a.keys[i][:8]) }

// login returns the index of the user name whose token is token, or
// false. The token is compared in constant time, and compared at all
// for an unknown name, so the time taken tells neither.
func (a *accounts) login(name, token string) (int, bool) {
	sum := sha256.Sum256([]byte(token))
	i, known := a.byName[name]
	want := [sha256.Size]byte{}
	if known {
		want = a.keys[i]
	}
	if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 || !known {
		return 0, false
	}
	return i, true
}

// find returns the index of a session's user, or false if the user is no
// longer configured or has another token since.
func (a *accounts) find(acc account) (int, bool) {
	i, ok := a.byName[acc.User]
	if !ok || subtle.ConstantTimeCompare([]byte(a.fingerprint(i)), []byte(acc.Key)) != 1 {
		return 0, false
	}
	return i, true
}

// userIDs maps the index of a user to its row id.
type userIDs []int64

// userID is the row id of the request's authenticated user: the request
// value the guard (guardPlugin) provides, however the user
// authenticated.
type userID int64
