package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/burrow-go/burrow/app"
)

// article is an article in a list: everything but its body.
type article struct {
	Slug           string   `json:"slug"`
	Title          string   `json:"title"`
	Description    string   `json:"description"`
	TagList        []string `json:"tagList"`
	CreatedAt      string   `json:"createdAt"`
	UpdatedAt      string   `json:"updatedAt"`
	Favorited      bool     `json:"favorited"`
	FavoritesCount int      `json:"favoritesCount"`
	Author         profile  `json:"author"`
	id             int64
}

// fullArticle is one article, with its body.
type fullArticle struct {
	article
	Body string `json:"body"`
}

type articleReply struct {
	Article fullArticle `json:"article"`
}

type articlesReply struct {
	Articles      []article `json:"articles"`
	ArticlesCount int       `json:"articlesCount"`
}

// stamp writes an instant as RealWorld's clients read it: UTC, with
// milliseconds always.
func stamp(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

type listIn struct {
	app.In
	Tag       string `query:"tag" validate:"max=64"`
	Author    string `query:"author" validate:"max=64"`
	Favorited string `query:"favorited" validate:"max=64"`
	Limit     int    `query:"limit" default:"20" validate:"min=1,max=100"`
	Offset    int    `query:"offset" default:"0" validate:"min=0,max=1000000"`
	Viewer    viewer
	Tx        tx
}

type feedIn struct {
	app.In
	Limit  int `query:"limit" default:"20" validate:"min=1,max=100"`
	Offset int `query:"offset" default:"0" validate:"min=0,max=1000000"`
	Viewer viewer
	Tx     tx
}

type slugIn struct {
	app.In
	Slug   string `path:"slug" validate:"max=256"`
	Viewer viewer
	Tx     tx
}

type newArticle struct {
	Title       string   `json:"title" validate:"required,max=256"`
	Description string   `json:"description" validate:"required,max=1024"`
	Body        string   `json:"body" validate:"required,max=65536"`
	TagList     []string `json:"tagList" validate:"max=16"`
}

type createArticleIn struct {
	app.In
	Body struct {
		Article newArticle `json:"article"`
	} `body:""`
	Viewer viewer
	Tx     tx
}

type updateArticleIn struct {
	app.In
	Slug string `path:"slug" validate:"max=256"`
	Body struct {
		Article struct {
			Title       *string `json:"title" validate:"min=1,max=256"`
			Description *string `json:"description" validate:"min=1,max=1024"`
			Body        *string `json:"body" validate:"min=1,max=65536"`
		} `json:"article"`
	} `body:""`
	Viewer viewer
	Tx     tx
}

// articlesPlugin serves articles, the feed and favorites.
func articlesPlugin(s *app.Server) error {
	app.Get(s, "/articles", listArticles, app.Tags("articles"), app.Summary("Recent articles, filtered"))
	app.Get(s, "/articles/:slug", getArticle, app.Tags("articles"), app.Summary("An article"))
	return s.Register(func(s *app.Server) error {
		s.Register(requireUser)
		app.Get(s, "/articles/feed", feed, app.Tags("articles"), app.Summary("Recent articles of followed users"))
		app.Post(s, "/articles", createArticle, app.Tags("articles"), app.Summary("Write an article"))
		app.Put(s, "/articles/:slug", updateArticle, app.Tags("articles"), app.Summary("Change an article"))
		app.Delete(s, "/articles/:slug", deleteArticle, app.Tags("articles"), app.Summary("Delete an article"))
		app.Post(s, "/articles/:slug/favorite", favorite, app.Tags("favorites"), app.Summary("Favorite an article"))
		return app.Delete(s, "/articles/:slug/favorite", unfavorite, app.Tags("favorites"), app.Summary("Unfavorite an article"))
	}, app.Name("writing"))
}

// articleColumns and articleFrom select articles as viewer (the first
// two parameters) sees them.
const articleColumns = `SELECT a.id, a.slug, a.title, a.description, a.body, a.created_at, a.updated_at,
	u.username, u.bio, u.image,
	(SELECT COUNT(*) FROM favorites f WHERE f.article_id = a.id),
	EXISTS (SELECT 1 FROM favorites f WHERE f.article_id = a.id AND f.user_id = ?),
	EXISTS (SELECT 1 FROM follows fo WHERE fo.followee_id = a.author_id AND fo.follower_id = ?)`

const articleFrom = ` FROM articles a JOIN users u ON u.id = a.author_id`

func scanArticle(row interface{ Scan(...any) error }) (fullArticle, error) {
	var (
		a                fullArticle
		created, updated int64
	)
	err := row.Scan(&a.id, &a.Slug, &a.Title, &a.Description, &a.Body, &created, &updated,
		&a.Author.Username, &a.Author.Bio, &a.Author.Image, &a.FavoritesCount, &a.Favorited, &a.Author.Following)
	a.CreatedAt, a.UpdatedAt = stamp(created), stamp(updated)
	return a, err
}

// list answers the articles matching where (with args), most recent
// first, with their count.
func list(ctx context.Context, t tx, viewerID int64, where string, args []any, limit, offset int) (articlesReply, error) {
	r := articlesReply{Articles: []article{}}
	if err := t.QueryRowContext(ctx, t.q(`SELECT COUNT(*)`+articleFrom+where), args...).Scan(&r.ArticlesCount); err != nil {
		return r, err
	}
	rows, err := t.QueryContext(ctx, t.q(articleColumns+articleFrom+where+` ORDER BY a.created_at DESC, a.id DESC LIMIT ? OFFSET ?`),
		append([]any{viewerID, viewerID}, append(args, limit, offset)...)...)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanArticle(rows)
		if err != nil {
			return r, err
		}
		r.Articles = append(r.Articles, a.article)
	}
	if err := rows.Err(); err != nil {
		return r, err
	}
	return r, tagsOf(ctx, t, r.Articles)
}

func listArticles(ctx context.Context, in listIn) (articlesReply, error) {
	var (
		where []string
		args  []any
	)
	if in.Tag != "" {
		where = append(where, `EXISTS (SELECT 1 FROM article_tags t WHERE t.article_id = a.id AND t.tag = ?)`)
		args = append(args, in.Tag)
	}
	if in.Author != "" {
		where = append(where, `u.username = ?`)
		args = append(args, in.Author)
	}
	if in.Favorited != "" {
		where = append(where, `EXISTS (SELECT 1 FROM favorites f JOIN users fu ON fu.id = f.user_id WHERE f.article_id = a.id AND fu.username = ?)`)
		args = append(args, in.Favorited)
	}
	w := ""
	if len(where) > 0 {
		w = " WHERE " + strings.Join(where, " AND ")
	}
	return list(ctx, in.Tx, in.Viewer.ID, w, args, in.Limit, in.Offset)
}

func feed(ctx context.Context, in feedIn) (articlesReply, error) {
	return list(ctx, in.Tx, in.Viewer.ID, ` WHERE a.author_id IN (SELECT followee_id FROM follows WHERE follower_id = ?)`,
		[]any{in.Viewer.ID}, in.Limit, in.Offset)
}

// tagsOf fills in the tag lists of articles, in one query.
func tagsOf(ctx context.Context, t tx, articles []article) error {
	if len(articles) == 0 {
		return nil
	}
	ids := make([]any, len(articles))
	byID := make(map[int64]*article, len(articles))
	for i := range articles {
		ids[i] = articles[i].id
		articles[i].TagList = []string{}
		byID[articles[i].id] = &articles[i]
	}
	rows, err := t.QueryContext(ctx, t.q(`SELECT article_id, tag FROM article_tags WHERE article_id IN (?`+
		strings.Repeat(", ?", len(ids)-1)+`) ORDER BY tag`), ids...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id  int64
			tag string
		)
		if err := rows.Scan(&id, &tag); err != nil {
			return err
		}
		byID[id].TagList = append(byID[id].TagList, tag)
	}
	return rows.Err()
}

// loadArticle returns the article slug as viewer sees it.
func loadArticle(ctx context.Context, t tx, slug string, viewerID int64) (fullArticle, int64, error) {
	var author int64
	a, err := scanArticle(t.QueryRowContext(ctx, t.q(articleColumns+articleFrom+` WHERE a.slug = ?`), viewerID, viewerID, slug))
	if errors.Is(err, sql.ErrNoRows) {
		return a, 0, errNotFound
	}
	if err != nil {
		return a, 0, err
	}
	if err := t.QueryRowContext(ctx, t.q(`SELECT author_id FROM articles WHERE id = ?`), a.id).Scan(&author); err != nil {
		return a, 0, err
	}
	list := []article{a.article}
	if err := tagsOf(ctx, t, list); err != nil {
		return a, 0, err
	}
	a.article = list[0]
	return a, author, nil
}

func getArticle(ctx context.Context, in slugIn) (articleReply, error) {
	a, _, err := loadArticle(ctx, in.Tx, in.Slug, in.Viewer.ID)
	return articleReply{a}, err
}

// slugOf makes a URL-safe slug of title, unique by a random suffix.
func slugOf(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 64 {
			break
		}
	}
	var suffix [4]byte
	rand.Read(suffix[:])
	return strings.TrimSuffix(b.String(), "-") + "-" + hex.EncodeToString(suffix[:])
}

func createArticle(ctx context.Context, in createArticleIn) (app.Created[articleReply], error) {
	n := in.Body.Article
	now := time.Now().UnixMilli()
	slug := slugOf(n.Title)
	var id int64
	err := in.Tx.QueryRowContext(ctx, in.Tx.q(`INSERT INTO articles (slug, title, description, body, author_id, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`), slug, n.Title, n.Description, n.Body, in.Viewer.ID, now, now).Scan(&id)
	if err != nil {
		return app.Created[articleReply]{}, err
	}
	tags := slices.Compact(slices.Sorted(slices.Values(n.TagList)))
	for _, tag := range tags {
		tag = strings.TrimSpace(tag)
		if tag == "" || len(tag) > 64 {
			return app.Created[articleReply]{}, conflictLike("tagList", "holds an empty or overlong tag")
		}
		if _, err := in.Tx.ExecContext(ctx, in.Tx.q(`INSERT INTO article_tags (article_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING`), id, tag); err != nil {
			return app.Created[articleReply]{}, err
		}
	}
	a, _, err := loadArticle(ctx, in.Tx, slug, in.Viewer.ID)
	return app.Created[articleReply]{Location: "/api/articles/" + slug, Value: articleReply{a}}, err
}

// own loads the article slug and refuses it unless viewer wrote it.
func own(ctx context.Context, t tx, slug string, viewerID int64) (fullArticle, error) {
	a, author, err := loadArticle(ctx, t, slug, viewerID)
	if err == nil && author != viewerID {
		err = errForbidden
	}
	return a, err
}

func updateArticle(ctx context.Context, in updateArticleIn) (articleReply, error) {
	a, err := own(ctx, in.Tx, in.Slug, in.Viewer.ID)
	if err != nil {
		return articleReply{}, err
	}
	u := in.Body.Article
	title, desc, body := a.Title, a.Description, a.Body
	if u.Title != nil {
		title = *u.Title
	}
	if u.Description != nil {
		desc = *u.Description
	}
	if u.Body != nil {
		body = *u.Body
	}
	slug := a.Slug
	if title != a.Title {
		slug = slugOf(title)
	}
	if _, err := in.Tx.ExecContext(ctx, in.Tx.q(`UPDATE articles SET slug = ?, title = ?, description = ?, body = ?, updated_at = ? WHERE id = ?`),
		slug, title, desc, body, time.Now().UnixMilli(), a.id); err != nil {
		return articleReply{}, err
	}
	a, _, err = loadArticle(ctx, in.Tx, slug, in.Viewer.ID)
	return articleReply{a}, err
}

func deleteArticle(ctx context.Context, in slugIn) (app.NoContent, error) {
	a, err := own(ctx, in.Tx, in.Slug, in.Viewer.ID)
	if err != nil {
		return app.NoContent{}, err
	}
	_, err = in.Tx.ExecContext(ctx, in.Tx.q(`DELETE FROM articles WHERE id = ?`), a.id)
	return app.NoContent{}, err
}

func favorite(ctx context.Context, in slugIn) (articleReply, error) {
	return setFavorite(ctx, in, `INSERT INTO favorites (user_id, article_id) VALUES (?, ?) ON CONFLICT DO NOTHING`)
}

func unfavorite(ctx context.Context, in slugIn) (articleReply, error) {
	return setFavorite(ctx, in, `DELETE FROM favorites WHERE user_id = ? AND article_id = ?`)
}

func setFavorite(ctx context.Context, in slugIn, stmt string) (articleReply, error) {
	a, _, err := loadArticle(ctx, in.Tx, in.Slug, in.Viewer.ID)
	if err != nil {
		return articleReply{}, err
	}
	if _, err := in.Tx.ExecContext(ctx, in.Tx.q(stmt), in.Viewer.ID, a.id); err != nil {
		return articleReply{}, err
	}
	a, _, err = loadArticle(ctx, in.Tx, in.Slug, in.Viewer.ID)
	return articleReply{a}, err
}
