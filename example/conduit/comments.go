package main

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/burrow-go/burrow/app"
)

type comment struct {
	ID        int64   `json:"id"`
	CreatedAt string  `json:"createdAt"`
	UpdatedAt string  `json:"updatedAt"`
	Body      string  `json:"body"`
	Author    profile `json:"author"`
}

type commentReply struct {
	Comment comment `json:"comment"`
}

type commentsReply struct {
	Comments []comment `json:"comments"`
}

type addCommentIn struct {
	app.In
	Slug string `path:"slug" validate:"max=256"`
	Body struct {
		Comment struct {
			Body string `json:"body" validate:"required,max=16384"`
		} `json:"comment"`
	} `body:""`
	Viewer viewer
	Tx     tx
}

type commentIn struct {
	app.In
	Slug   string `path:"slug" validate:"max=256"`
	ID     int64  `path:"id" validate:"min=1"`
	Viewer viewer
	Tx     tx
}

// commentsPlugin serves the comments of articles.
func commentsPlugin(s *app.Server) error {
	app.Get(s, "/articles/:slug/comments", listComments, app.Tags("comments"), app.Summary("An article's comments"))
	return s.Register(func(s *app.Server) error {
		s.Register(requireUser)
		app.Post(s, "/articles/:slug/comments", addComment, app.Tags("comments"), app.Summary("Comment on an article"))
		return app.Delete(s, "/articles/:slug/comments/:id", deleteComment, app.Tags("comments"), app.Summary("Delete a comment"))
	}, app.Name("commenting"))
}

const commentColumns = `SELECT c.id, c.created_at, c.updated_at, c.body, u.username, u.bio, u.image,
	EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ? AND f.followee_id = u.id)
	FROM comments c JOIN users u ON u.id = c.author_id`

func scanComment(row interface{ Scan(...any) error }) (comment, error) {
	var (
		c                comment
		created, updated int64
	)
	err := row.Scan(&c.ID, &created, &updated, &c.Body, &c.Author.Username, &c.Author.Bio, &c.Author.Image, &c.Author.Following)
	c.CreatedAt, c.UpdatedAt = stamp(created), stamp(updated)
	return c, err
}

func articleID(ctx context.Context, t tx, slug string) (int64, error) {
	var id int64
	err := t.QueryRowContext(ctx, t.q(`SELECT id FROM articles WHERE slug = ?`), slug).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, errNotFound
	}
	return id, err
}

func listComments(ctx context.Context, in slugIn) (commentsReply, error) {
	r := commentsReply{Comments: []comment{}}
	aid, err := articleID(ctx, in.Tx, in.Slug)
	if err != nil {
		return r, err
	}
	rows, err := in.Tx.QueryContext(ctx, in.Tx.q(commentColumns+` WHERE c.article_id = ? ORDER BY c.created_at DESC, c.id DESC`), in.Viewer.ID, aid)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanComment(rows)
		if err != nil {
			return r, err
		}
		r.Comments = append(r.Comments, c)
	}
	return r, rows.Err()
}

func addComment(ctx context.Context, in addCommentIn) (commentReply, error) {
	aid, err := articleID(ctx, in.Tx, in.Slug)
	if err != nil {
		return commentReply{}, err
	}
	now := time.Now().UnixMilli()
	var id int64
	if err := in.Tx.QueryRowContext(ctx, in.Tx.q(`INSERT INTO comments (article_id, author_id, body, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?) RETURNING id`), aid, in.Viewer.ID, in.Body.Comment.Body, now, now).Scan(&id); err != nil {
		return commentReply{}, err
	}
	c, err := scanComment(in.Tx.QueryRowContext(ctx, in.Tx.q(commentColumns+` WHERE c.id = ?`), in.Viewer.ID, id))
	return commentReply{c}, err
}

func deleteComment(ctx context.Context, in commentIn) (app.NoContent, error) {
	aid, err := articleID(ctx, in.Tx, in.Slug)
	if err != nil {
		return app.NoContent{}, err
	}
	var author int64
	err = in.Tx.QueryRowContext(ctx, in.Tx.q(`SELECT author_id FROM comments WHERE id = ? AND article_id = ?`), in.ID, aid).Scan(&author)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return app.NoContent{}, errNotFound
	case err != nil:
		return app.NoContent{}, err
	case author != in.Viewer.ID:
		return app.NoContent{}, errForbidden
	}
	_, err = in.Tx.ExecContext(ctx, in.Tx.q(`DELETE FROM comments WHERE id = ?`), in.ID)
	return app.NoContent{}, err
}
