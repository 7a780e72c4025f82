package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/burrow-go/burrow/httpx"
)

// TestReadImport: the CSV a POST /todos/import file holds, and the 400
// of every way it can be wrong.
func TestReadImport(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200)
	var thousand strings.Builder
	thousand.WriteString("title,done\n")
	for i := range maxImportRows {
		fmt.Fprintf(&thousand, "t%d,\n", i)
	}
	tests := []struct {
		name, csv string
		want      []newTodo
		err       string
	}{
		{"rows", "title,done\nMilk,true\nEggs,false\nBread,\n", []newTodo{{"Milk", true}, {"Eggs", false}, {"Bread", false}}, ""},
		{"no rows", "title,done\n", nil, ""},
		{"CRLF and a BOM", "\uFEFFtitle,done\r\nMilk,true\r\n", []newTodo{{"Milk", true}}, ""},
		{"no done column", "title,done\nMilk\n", []newTodo{{"Milk", false}}, ""},
		{"quoted", "title,done\n\"Milk, whole\",true\n\"say \"\"hi\"\"\",\n", []newTodo{{"Milk, whole", true}, {`say "hi"`, false}}, ""},
		{"200 characters", "title,done\n" + long + ",\n", []newTodo{{long, false}}, ""},
		{"a repeated title is the store's", "title,done\nMilk,\nMilk,\n", []newTodo{{"Milk", false}, {"Milk", false}}, ""},
		{"1000 rows", thousand.String(), nil, ""},
		{"1001 rows", thousand.String() + "one more,\n", nil, invalid("body/file", "maxItems", "must NOT have more than 1000 rows")},
		{"empty", "", nil, invalid("body/file", "required", "must have the header row title,done")},
		{"no header", "Milk,true\n", nil, invalid("body/file", "header", "must begin with the header row title,done")},
		{"another header", "name,done\nMilk,true\n", nil, invalid("body/file", "header", "must begin with the header row title,done")},
		{"three columns", "title,done\nMilk,true,x\n", nil, invalid("body/file", "csv", "line 2: must have the columns title,done, not 3")},
		{"empty title", "title,done\n,true\n", nil, invalid("body/file", "title", "line 2: the title must have 1 to 200 characters")},
		{"201 characters", "title,done\n" + long + "e,\n", nil, invalid("body/file", "title", "line 2: the title must have 1 to 200 characters")},
		{"not UTF-8", "title,done\n\xff,\n", nil, invalid("body/file", "title", "line 2: the title must have 1 to 200 characters")},
		{"done yes", "title,done\nMilk,yes\n", nil, invalid("body/file", "done", "line 2: done must be true, false or empty")},
		{"a bare quote", "title,done\nMi\"lk,true\n", nil, invalid("body/file", "csv", `line 2: bare \" in non-quoted-field`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := readImport(strings.NewReader(tc.csv))
			if tc.err != "" {
				require.Error(t, err)
				assert.Equal(t, tc.err, js(httpx.BodyOf(err)))
				return
			}
			require.NoError(t, err)
			if tc.name == "1000 rows" {
				assert.Len(t, got, maxImportRows)
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
