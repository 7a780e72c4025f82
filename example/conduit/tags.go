package main

import (
	"context"

	"github.com/burrow-go/burrow/app"
)

type tagsReply struct {
	Tags []string `json:"tags"`
}

type tagsIn struct {
	app.In
	DB *db
}

// tagsPlugin serves the tags in use, most used first.
func tagsPlugin(s *app.Server) error {
	return app.Get(s, "/tags", listTags, app.Tags("tags"), app.Summary("The tags in use"))
}

// listTags reads without a transaction: one statement.
func listTags(ctx context.Context, in tagsIn) (tagsReply, error) {
	r := tagsReply{Tags: []string{}}
	rows, err := in.DB.QueryContext(ctx, `SELECT tag FROM article_tags GROUP BY tag ORDER BY COUNT(*) DESC, tag LIMIT 100`)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return r, err
		}
		r.Tags = append(r.Tags, t)
	}
	return r, rows.Err()
}
