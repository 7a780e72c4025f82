// Package config loads a service's configuration into a struct whose
// field tags say where each value comes from, its default and its rules:
//
//	type Config struct {
//		Port      int           `flag:"port" default:"8080" validate:"min=0,max=65535" usage:"port to listen on"`
//		RateLimit int           `flag:"rate-limit" default:"600" validate:"min=1" usage:"requests per user per minute"`
//		DB        config.URL    `flag:"db" env:"DATABASE_URL" usage:"the database"`
//		APIKey    config.Secret `env:"API_KEY" validate:"required,min=32"`
//		Issuer    string        `flag:"jwt-issuer" requires:"jwt-audience"`
//		Audience  string        `flag:"jwt-audience"`
//	}
//
//	var cfg Config
//	err := config.Load(&cfg, config.EnvPrefix("TODO_"))
//
// A field's value is the first of: its flag given on the command line;
// its environment variables, in order (env, and with EnvPrefix the
// flag's name upper-cased, "-" as "_", after the prefix, first); for
// each variable NAME, the file that NAME_FILE names (a secret mounted as
// a file); its default tag; the value the struct already held. An empty
// variable counts as unset.
//
// The rules are those of a request's input, the validate and pattern
// tags (see app.In), checked by the same validator; requires:"a,b"
// demands that the fields named a and b (by their flags, or else their
// Go names) be set too whenever this one is. Load reports every invalid value at
// once, in an *Error that names each by where it came from (-rate-limit,
// TODO_RATE_LIMIT, TODO_DB_FILE) with the rule it broke; Load writes no value into it.
//
// A value of type Secret, or the password of a URL, is never shown:
// fmt, encoding/json, log/slog and zap print "[redacted]" in its place,
// and so does Dump, which writes the effective configuration as JSON.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// An Option configures Load.
type Option func(*loader)

type loader struct {
	args   []string
	argsOK bool
	getenv func(string) string
	prefix string
	fs     *flag.FlagSet
	out    io.Writer
	read   func(name string) ([]byte, error)
}

// Args is the command line to read, without the program's name
// (os.Args[1:] by default).
func Args(args []string) Option {
	return func(l *loader) { l.args, l.argsOK = args, true }
}

// Getenv is how variables are read (os.Getenv by default).
func Getenv(getenv func(string) string) Option { return func(l *loader) { l.getenv = getenv } }

// EnvPrefix makes every field with a flag also read the variable named
// prefix, then the flag's name upper-cased with "-" as "_": with
// EnvPrefix("TODO_"), -rate-limit reads TODO_RATE_LIMIT, before the
// variables of its env tag.
func EnvPrefix(prefix string) Option { return func(l *loader) { l.prefix = prefix } }

// FlagSet defines the configuration's flags on fs and parses the command
// line with it, so that the program may define flags of its own there
// (a flag.ContinueOnError set, given to one Load: a second would define
// the flags again, which the flag package refuses with a panic). By
// default Load makes a set named after the program.
func FlagSet(fs *flag.FlagSet) Option { return func(l *loader) { l.fs = fs } }

// Output is where -h and -help write the usage (by default the flag
// set's output: os.Stderr, unless FlagSet's says otherwise).
func Output(w io.Writer) Option { return func(l *loader) { l.out = w } }

// maxFile bounds a NAME_FILE's content: a secret, not a data file.
const maxFile = 64 << 10

// Load fills cfg, a pointer to a struct, as the package doc says. It
// returns an *Error listing every invalid value (and a command line that
// does not parse), flag.ErrHelp after writing the usage for -h, or an
// error for a struct whose tags cannot be applied: a program's mistake,
// found on the first Load of its type.
func Load(cfg any, opts ...Option) error {
	l := loader{getenv: os.Getenv, read: readFile}
	for _, o := range opts {
		o(&l)
	}
	if !l.argsOK {
		l.args = os.Args[1:]
	}
	rv := reflect.ValueOf(cfg)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("config: Load needs a pointer to a struct, not %T", cfg)
	}
	p, err := planOf(rv.Type().Elem())
	if err != nil {
		return err
	}
	return l.load(p, rv.Elem())
}

func (l *loader) load(p *plan, v reflect.Value) error {
	fs := l.fs
	if fs == nil {
		fs = flag.NewFlagSet(filepath.Base(os.Args[0]), flag.ContinueOnError)
	}
	given := make([]*flagValue, len(p.fields))
	for i := range p.fields {
		f := &p.fields[i]
		if f.flag == "" {
			continue
		}
		given[i] = &flagValue{f: f}
		fs.Var(given[i], f.flag, f.usage(l.envNames(f)))
	}
	out := fs.Output()
	fs.SetOutput(io.Discard) // the error is returned, not printed
	err := fs.Parse(l.args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		if l.out != nil {
			fs.SetOutput(l.out)
		}
		fs.Usage() // the set's own, or flag's: "Usage of name:" and every flag
		fs.SetOutput(out)
		return err
	}
	if err != nil {
		return &Error{Invalid: []Invalid{{Rule: "syntax", Message: err.Error()}}}
	}
	if fs.NArg() > 0 {
		return &Error{Invalid: []Invalid{{Rule: "syntax", Message: fmt.Sprintf("unexpected argument %q", fs.Arg(0))}}}
	}

	var bad []found
	from := make([]string, len(p.fields)) // where each value came from, for messages
	failed := make([]bool, len(p.fields))
	for i := range p.fields {
		f := &p.fields[i]
		raw, src, ok, problem := l.lookup(f, given[i])
		from[i] = src
		if problem != nil {
			bad, failed[i] = append(bad, found{i, *problem}), true
			continue
		}
		if !ok {
			continue
		}
		fv := v.Field(f.index)
		if err := f.set(fv, raw); err != nil {
			fv.SetZero()
			bad, failed[i] = append(bad, found{i, Invalid{Name: src, Rule: "type", Message: err.Error()}}), true
		}
	}
	if p.rules != nil {
		for _, fe := range p.rules.Validate(v, "", nil) {
			i := p.byKey[strings.TrimPrefix(fe.Path, "/")]
			if failed[i] {
				continue // its value was not read: its rules say nothing new
			}
			bad = append(bad, found{i, Invalid{Name: from[i], Rule: fe.Rule, Message: fe.Message}})
		}
	}
	for i := range p.fields {
		f := &p.fields[i]
		if failed[i] || v.Field(f.index).IsZero() {
			continue
		}
		for _, o := range f.requires {
			if other := &p.fields[o]; v.Field(other.index).IsZero() && !failed[o] {
				bad = append(bad, found{i, Invalid{Name: from[i], Rule: "requires",
					Message: "needs " + l.describe(other) + " as well"}})
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.SortStableFunc(bad, func(a, b found) int { return a.field - b.field }) // field order
	e := &Error{Invalid: make([]Invalid, len(bad))}
	for i, b := range bad {
		e.Invalid[i] = b.Invalid
	}
	return e
}

// found is an invalid value and the position of its field.
type found struct {
	field int
	Invalid
}

// lookup finds field f's text: from its flag, when given, or its
// variables, or their files, or its default. src names where it came
// from (or, when it came from nowhere, the field as a user sets it).
func (l *loader) lookup(f *field, given *flagValue) (raw, src string, ok bool, problem *Invalid) {
	if given != nil && given.set {
		return given.raw, "-" + f.flag, true, nil
	}
	for _, name := range l.envNames(f) {
		if s := l.getenv(name); s != "" {
			if l.getenv(name+"_FILE") != "" {
				return "", name, false, &Invalid{Name: name, Rule: "source",
					Message: "is set and so is " + name + "_FILE: set one of them"}
			}
			return s, name, true, nil
		}
		if path := l.getenv(name + "_FILE"); path != "" {
			b, err := l.read(path)
			if err != nil {
				return "", name + "_FILE", false, &Invalid{Name: name + "_FILE", Rule: "file", Message: err.Error()}
			}
			s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
			return s, name + "_FILE", true, nil
		}
	}
	if f.def != nil {
		return *f.def, l.describe(f), true, nil
	}
	return "", l.describe(f), false, nil
}

// describe names field f as a user sets it: its flag, or else its first
// variable; with both, "-flag (or VAR)".
func (l *loader) describe(f *field) string {
	env := l.envNames(f)
	switch {
	case f.flag == "":
		return env[0]
	case len(env) == 0:
		return "-" + f.flag
	}
	return "-" + f.flag + " (or " + env[0] + ")"
}

// envNames are the variables field f reads, in order.
func (l *loader) envNames(f *field) []string {
	if l.prefix == "" || f.flag == "" {
		return f.env
	}
	derived := l.prefix + strings.ToUpper(strings.ReplaceAll(f.flag, "-", "_"))
	if slices.Contains(f.env, derived) {
		return f.env
	}
	return append([]string{derived}, f.env...)
}

// readFile reads a NAME_FILE's file, up to maxFile bytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path) // #nosec G304 -- the operator names the file in NAME_FILE: reading it is the point
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%s is larger than %d KiB", path, maxFile>>10)
	}
	return b, nil
}

// flagValue is a field's flag. Set records the text and never fails, so
// that a value that does not convert is reported with all the others,
// not alone by the flag package.
type flagValue struct {
	f   *field
	raw string
	set bool
}

func (v *flagValue) Set(s string) error { v.raw, v.set = s, true; return nil }

// String is the default shown by -h: never a secret's.
func (v *flagValue) String() string {
	if v == nil || v.f == nil || v.f.def == nil || v.f.secret {
		return ""
	}
	return *v.f.def
}

// IsBoolFlag lets a boolean flag be given alone (-openapi).
func (v *flagValue) IsBoolFlag() bool { return v != nil && v.f != nil && v.f.kind == reflect.Bool }

// Error lists every invalid value Load found.
type Error struct {
	Invalid []Invalid
}

// Invalid is one value Load refused: where it came from, the rule it
// broke and a sentence saying so: Load writes no value into it (the error
// of a type's UnmarshalText is kept as it is).
type Invalid struct {
	// Name is where the value came from: "-rate-limit",
	// "TODO_RATE_LIMIT", "TODO_DB_FILE"; for a value not given, the
	// field's flag and variable ("-jwt-audience (or TODO_JWT_AUDIENCE)").
	// Empty for a command line that does not parse.
	Name string
	// Rule is the rule broken: a validate rule (required, min, max, len,
	// enum, format, pattern), requires, type (the text does not
	// convert), file (NAME_FILE cannot be read), source (NAME and
	// NAME_FILE both set) or syntax (the command line).
	Rule string
	// Message says what the value must be: "must be >= 1".
	Message string
}

// Error is one line per invalid value after the first, "invalid
// configuration:", each naming the value and its rule.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("invalid configuration:")
	for _, in := range e.Invalid {
		b.WriteString("\n\t")
		b.WriteString(in.String())
	}
	return b.String()
}

// String is the line of one invalid value: "-rate-limit must be >= 1
// (rule min)".
func (in Invalid) String() string {
	s := in.Message
	if in.Name != "" {
		s = in.Name + " " + s
	}
	return s + " (rule " + in.Rule + ")"
}

// ExitCode is 2, the status of a command given a wrong usage: app.ExitCode
// reads it.
func (e *Error) ExitCode() int { return 2 }
