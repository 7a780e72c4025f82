package main

import (
	"cmp"
	"database/sql"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// tableFortune is table Fortune as TechEmpower's database scripts fill
// it, in id order: an HTML injection, two em dashes, a Japanese text.
var tableFortune = []fortune{
	{1, "fortune: No such file or directory"},
	{2, "A computer scientist is someone who fixes things that aren't broken."},
	{3, "After enough decimal places, nobody gives a damn."},
	{4, "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1"},
	{5, "A computer program does what you tell it to do, not what you want it to do."},
	{6, "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen"},
	{7, "Any program that runs right is obsolete."},
	{8, "A list is only as strong as its weakest link. — Donald Knuth"},
	{9, "Feature: A bug with seniority."},
	{10, "Computers make very fast, very accurate mistakes."},
	{11, `<script>alert("This should not be displayed in a browser alert box.");</script>`},
	{12, "フレームワークのベンチマーク"},
}

// seedFile is the database every test copies (TestMain makes it once):
// generating 10,000 rows takes a while under the race detector.
var seedFile string

// writeSeed creates the tables in a new file, as the benchmark's generator
// does: World with 10,000 rows of random numbers from a fixed seed,
// Fortune, WAL mode, the log checkpointed into the file so that copying
// the file alone copies the data.
func writeSeed(file string) error {
	db, err := sql.Open("sqlite", file+"?"+pragmas)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.Exec(`CREATE TABLE World (id INTEGER PRIMARY KEY, randomNumber INTEGER NOT NULL);
CREATE TABLE Fortune (id INTEGER PRIMARY KEY, message TEXT NOT NULL);`); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(7, 11)) // #nosec G404 -- test data
	for id := 1; id <= worldRows; id++ {
		if _, err := tx.Exec("INSERT INTO World VALUES (?, ?)", id, r.IntN(worldRows)+1); err != nil {
			return err
		}
	}
	for _, f := range tableFortune {
		if _, err := tx.Exec("INSERT INTO Fortune VALUES (?, ?)", f.ID, f.Message); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

// databaseFile is a fresh copy of the seed for tb alone: tests that update
// rows do not see each other's writes.
func databaseFile(tb testing.TB) string {
	tb.Helper()
	src, err := os.Open(seedFile)
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	file := filepath.Join(tb.TempDir(), "tfb.db")
	dst, err := os.Create(file)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		tb.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		tb.Fatal(err)
	}
	return file
}

// readWorld reads the whole of table World from file: id → randomNumber.
func readWorld(tb testing.TB, file string) map[int]int {
	tb.Helper()
	db, err := sql.Open("sqlite", file+"?"+pragmas)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT id, randomNumber FROM World")
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	table := make(map[int]int, worldRows)
	for rows.Next() {
		var id, n int
		if err := rows.Scan(&id, &n); err != nil {
			tb.Fatal(err)
		}
		table[id] = n
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return table
}

// htmlEscapes are html/template's escapes of the characters the fortunes
// hold: what the page must carry, written out independently of the
// template package.
var htmlEscapes = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")

// expectedPage is /fortunes' page, byte for byte: the table's fortunes and
// the one added at request time, by message, with html/template's escapes.
func expectedPage() string {
	list := append(slices.Clone(tableFortune), fortune{0, "Additional fortune added at request time."})
	slices.SortFunc(list, func(a, b fortune) int { return cmp.Compare(a.Message, b.Message) })
	var b strings.Builder
	b.WriteString("<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>")
	for _, f := range list {
		b.WriteString("<tr><td>" + strconv.Itoa(f.ID) + "</td><td>" + htmlEscapes.Replace(f.Message) + "</td></tr>")
	}
	b.WriteString("</table></body></html>")
	return b.String()
}
