// Package semver reads the version ranges plugins declare with
// app.Supports, in the npm style most plugin authors know, and tells
// whether a version falls inside one. Versions are major.minor.patch:
// pre-release and build suffixes are not part of Burrow's versions, so
// they are not parsed.
package semver

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is major.minor.patch.
type Version [3]int

func (v Version) less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

// MustParse returns the full version s ("1.2.3" or "v1.2.3") and panics
// if s is anything else; it is for constants.
func MustParse(s string) Version {
	v, n, err := parseVersion(s)
	if err != nil || n != 3 {
		panic("semver: bad version " + s)
	}
	return v
}

// parseVersion reads up to three dot-separated numbers; n says how many
// were given before the first "x" or "*" (or the end).
func parseVersion(s string) (v Version, n int, err error) {
	s = strings.TrimPrefix(s, "v")
	parts := strings.Split(s, ".")
	if len(parts) > 3 || s == "" {
		return v, 0, fmt.Errorf("bad version %q", s)
	}
	wild := false
	for i, p := range parts {
		if p == "x" || p == "X" || p == "*" {
			wild = true
			continue
		}
		if wild {
			return v, 0, fmt.Errorf("bad version %q: a number after a wildcard", s)
		}
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || p != strconv.Itoa(x) {
			return v, 0, fmt.Errorf("bad version %q", s)
		}
		v[i], n = x, i+1
	}
	return v, n, nil
}

// span is the half-open range [lo, hi); hi of nil means no upper bound.
type span struct {
	lo Version
	hi *Version
}

// Range is a union of intersections of spans: the versions matching
// any "||" alternative, each the spans all of its comparators allow.
type Range [][]span

// Allows reports whether v is in r.
func (r Range) Allows(v Version) bool {
	for _, all := range r {
		ok := true
		for _, s := range all {
			if v.less(s.lo) || (s.hi != nil && !v.less(*s.hi)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// ParseRange reads a range: alternatives separated by "||", each a
// space-separated list of comparators: "1.2.3" (exact), "1.x" / "1.2.x" /
// "*" (wildcards), ">=", ">", "<=", "<", "=", "^" (same left-most
// non-zero part) and "~" (same minor, or same major when only the major
// is given).
func ParseRange(s string) (Range, error) {
	var r Range
	for _, alt := range strings.Split(s, "||") {
		fields := strings.Fields(alt)
		if len(fields) == 0 {
			return nil, fmt.Errorf("invalid version range %q", s)
		}
		var all []span
		for _, f := range fields {
			sp, err := parseComparator(f)
			if err != nil {
				return nil, fmt.Errorf("invalid version range %q: %w", s, err)
			}
			all = append(all, sp)
		}
		r = append(r, all)
	}
	return r, nil
}
func parseComparator(f string) (span, error) {
	op := ""
	for _, p := range []string{">=", "<=", ">", "<", "=", "^", "~"} {
		if strings.HasPrefix(f, p) {
			op, f = p, f[len(p):]
			break
		}
	}
	v, n, err := parseVersion(f)
	if err != nil {
		return span{}, err
	}
	// next bumps part i of v and zeroes what follows: the first version
	// past every version that agrees with v up to part i.
	next := func(i int) *Version {
		w := v
		w[i]++
		for j := i + 1; j < 3; j++ {
			w[j] = 0
		}
		return &w
	}
	switch op {
	case "", "=":
		if n == 0 {
			return span{}, nil // "*": anything
		}
		return span{lo: v, hi: next(n - 1)}, nil
	case ">=":
		return span{lo: v}, nil
	case ">":
		if n == 0 {
			return span{}, fmt.Errorf("%q matches nothing", ">"+f)
		}
		return span{lo: *next(n - 1)}, nil
	case "<":
		return span{hi: &v}, nil
	case "<=":
		if n == 0 {
			return span{}, nil
		}
		return span{hi: next(n - 1)}, nil
	case "^":
		i := 0
		for i < n-1 && v[i] == 0 {
			i++
		}
		if n == 0 {
			return span{}, nil
		}
		return span{lo: v, hi: next(i)}, nil
	default: // "~"
		switch n {
		case 0:
			return span{}, nil
		case 1:
			return span{lo: v, hi: next(0)}, nil
		default:
			return span{lo: v, hi: next(1)}, nil
		}
	}
}
