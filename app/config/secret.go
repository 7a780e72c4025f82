package config

import (
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Redacted is what is shown in place of a secret.
const Redacted = "[redacted]"

// Secret is a string that is never shown: fmt (every verb), encoding/json,
// encoding.TextMarshaler's users, log/slog and zap (zap.Any,
// zap.Stringer) print "[redacted]", and so does Dump. An empty Secret
// prints as empty: that it is unset is no secret. string(s) is its
// value, for the one place that needs it.
type Secret string

// String is "[redacted]", or "" for an empty Secret.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return Redacted
}

// Format prints String whatever the verb, so %v, %s, %q, %x and %#v
// hide the value alike.
func (s Secret) Format(f fmt.State, verb rune) { format(f, verb, s.String()) }

// MarshalJSON is String as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return strconv.AppendQuote(nil, s.String()), nil }

// MarshalText is String.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue is String, for log/slog.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// URL is a URL (or a database's connection string) whose password is a
// secret: printed, logged and dumped with "[redacted]" in its place —
// the userinfo's password, a password, sslpassword or token query
// parameter, a password=… keyword — and as "[redacted]" whole when it
// does not parse as a URL yet holds an "@". Text that holds no password,
// a file path, is shown as it is. string(u) is its value.
type URL string

var passwordKeyword = regexp.MustCompile(`(?i)\b(password|sslpassword)(\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// String is the URL with its password replaced.
func (u URL) String() string {
	s := string(u)
	if !strings.Contains(s, "://") {
		if strings.Contains(s, "@") {
			return Redacted
		}
		return passwordKeyword.ReplaceAllString(s, "${1}${2}"+Redacted) // host=db password=… (libpq's keywords)
	}
	p, err := url.Parse(s)
	if err != nil {
		return Redacted
	}
	if q := redactQuery(s); q != "" {
		p.RawQuery = q // written as it is
	}
	if p.User != nil {
		if _, has := p.User.Password(); has {
			// Redacted writes xxxxx for the password; the username is
			// escaped, so ":xxxxx@" can be only that.
			return strings.Replace(p.Redacted(), ":xxxxx@", ":"+Redacted+"@", 1)
		}
	}
	return p.String()
}

// redactQuery is the query of URL s with its password parameters' values
// replaced, or "" when it has none.
func redactQuery(s string) string {
	i := strings.IndexByte(s, '?')
	if i < 0 {
		return ""
	}
	q := s[i+1:]
	if j := strings.IndexByte(q, '#'); j >= 0 {
		q = q[:j]
	}
	parts := strings.Split(q, "&")
	changed := false
	for k, part := range parts {
		key, _, _ := strings.Cut(part, "=")
		if name, err := url.QueryUnescape(key); err == nil {
			switch strings.ToLower(name) {
			case "password", "sslpassword", "pass", "pwd", "token", "secret":
				parts[k], changed = key+"="+Redacted, true
			}
		}
	}
	if !changed {
		return ""
	}
	return strings.Join(parts, "&")
}

// Format prints String whatever the verb.
func (u URL) Format(f fmt.State, verb rune) { format(f, verb, u.String()) }

// MarshalJSON is String as a JSON string.
func (u URL) MarshalJSON() ([]byte, error) { return strconv.AppendQuote(nil, u.String()), nil }

// MarshalText is String.
func (u URL) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// LogValue is String, for log/slog.
func (u URL) LogValue() slog.Value { return slog.StringValue(u.String()) }

// format prints shown for verb with f's flags, as a string would be.
func format(f fmt.State, verb rune, shown string) {
	switch verb {
	case 'v', 's', 'q', 'x', 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), shown)
	default:
		fmt.Fprintf(f, "%%!%c(%s)", verb, shown)
	}
}
