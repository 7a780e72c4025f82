package main

import (
	"context"
	"database/sql"
	"errors"

	"github.com/burrow-go/burrow/app"
)

// profile is a user as another user sees them.
type profile struct {
	Username  string  `json:"username"`
	Bio       *string `json:"bio"`
	Image     *string `json:"image"`
	Following bool    `json:"following"`
}

type profileReply struct {
	Profile profile `json:"profile"`
}

type profileIn struct {
	app.In
	Username string `path:"username" validate:"max=64"`
	Viewer   viewer
	Tx       tx
}

// profilesPlugin serves profiles, and following them.
func profilesPlugin(s *app.Server) error {
	app.Get(s, "/profiles/:username", getProfile, app.Tags("profiles"), app.Summary("A user's profile"))
	return s.Register(func(s *app.Server) error {
		s.Register(requireUser)
		app.Post(s, "/profiles/:username/follow", follow, app.Tags("profiles"), app.Summary("Follow a user"))
		return app.Delete(s, "/profiles/:username/follow", unfollow, app.Tags("profiles"), app.Summary("Stop following a user"))
	}, app.Name("following"))
}

func getProfile(ctx context.Context, in profileIn) (profileReply, error) {
	p, _, err := loadProfile(ctx, in.Tx, in.Username, in.Viewer.ID)
	return profileReply{p}, err
}

func follow(ctx context.Context, in profileIn) (profileReply, error) {
	return setFollow(ctx, in, `INSERT INTO follows (follower_id, followee_id) VALUES (?, ?) ON CONFLICT DO NOTHING`)
}

func unfollow(ctx context.Context, in profileIn) (profileReply, error) {
	return setFollow(ctx, in, `DELETE FROM follows WHERE follower_id = ? AND followee_id = ?`)
}

func setFollow(ctx context.Context, in profileIn, stmt string) (profileReply, error) {
	_, id, err := loadProfile(ctx, in.Tx, in.Username, in.Viewer.ID)
	if err != nil {
		return profileReply{}, err
	}
	if id == in.Viewer.ID {
		return profileReply{}, conflictLike("username", "is you")
	}
	if _, err := in.Tx.ExecContext(ctx, in.Tx.q(stmt), in.Viewer.ID, id); err != nil {
		return profileReply{}, err
	}
	p, _, err := loadProfile(ctx, in.Tx, in.Username, in.Viewer.ID)
	return profileReply{p}, err
}

// loadProfile returns username's profile as viewer sees it, and the
// user's id.
func loadProfile(ctx context.Context, t tx, username string, viewer int64) (profile, int64, error) {
	var (
		p  profile
		id int64
	)
	err := t.QueryRowContext(ctx, t.q(`SELECT u.id, u.username, u.bio, u.image,
		EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = ? AND f.followee_id = u.id)
		FROM users u WHERE u.username = ?`), viewer, username).Scan(&id, &p.Username, &p.Bio, &p.Image, &p.Following)
	if errors.Is(err, sql.ErrNoRows) {
		return p, 0, errNotFound
	}
	return p, id, err
}
