package openapi

import (
	"bytes"
	"crypto/sha256"
	_ "embed" // the docs page's style and script
	"encoding/base64"
	"encoding/json"
	"html"
)

// The docs page is Burrow's own: a style sheet and a script of about 150
// lines, in the binary, that render the document embedded in the
// page. It makes no request at all, so it works offline and needs no
// CDN, and a Content-Security-Policy lets only these two run.
var (
	//go:embed page/docs.css
	pageStyle string
	//go:embed page/docs.js
	pageScript string

	pageCSP = "default-src 'none'; style-src " + hashSource(pageStyle) + "; script-src " + hashSource(pageScript) +
		"; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

// hashSource is the CSP source that allows an inline element with this
// content.
func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// docsPage is the page of d. The document travels in a JSON data block,
// with <, > and & escaped, so no text of it can end the block.
func docsPage(d *Document, info Info, docURL string) []byte {
	title := info.Title
	if title == "" {
		title = "API"
	}
	var b bytes.Buffer
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</title>\n<style>")
	b.WriteString(pageStyle)
	b.WriteString("</style>\n</head>\n<body>\n<header><h1>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</h1><p>")
	if info.Version != "" {
		b.WriteString("Version " + html.EscapeString(info.Version) + " ")
	}
	if docURL != "" {
		b.WriteString("<a href=\"" + html.EscapeString(docURL) + "\">OpenAPI document</a>")
	}
	b.WriteString("</p></header>\n<main id=\"ops\">")
	if info.Description != "" {
		b.WriteString("<p>" + html.EscapeString(info.Description) + "</p>")
	}
	b.WriteString("</main>\n<script type=\"application/json\" id=\"openapi\">")
	json.HTMLEscape(&b, bytes.TrimSpace(d.v32)) // every route: QUERY's too
	b.WriteString("</script>\n<script>")
	b.WriteString(pageScript)
	b.WriteString("</script>\n</body>\n</html>\n")
	return b.Bytes()
}
