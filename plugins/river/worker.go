package river

import (
	"context"
	"fmt"
	"reflect"

	"github.com/riverqueue/river"

	"github.com/burrow-go/burrow/app"
)

// WorkFunc works a job of arguments A with the services D of the
// context its worker was declared in.
type WorkFunc[A river.JobArgs, D any] func(ctx context.Context, job *river.Job[A], deps D) error

// Work declares, in s's context, the worker of jobs of arguments A.
// D is a struct embedding app.In whose fields name the services the
// worker needs, as a typed route's input does (struct{} for none):
// they are resolved from s's context at Ready, which fails naming the
// worker and the missing service, so a worker cannot use a service
// only a sibling context provides. Each job's arguments are validated
// with the rules of A's validate tags before fn runs; a job that breaks
// them is cancelled, since retrying it cannot help.
//
// Call it in a plugin body, where jobs is visible (its plugin is
// registered in s's context or an ancestor).
func Work[TTx any, A river.JobArgs, D any](jobs *Jobs[TTx], s *app.Server, fn WorkFunc[A, D]) error {
	var args A
	what := fmt.Sprintf("worker of %q in %s", args.Kind(), s.Path())
	if fn == nil {
		return fmt.Errorf("%s: nil function", what)
	}
	if !app.HasService[*Jobs[TTx]](s) {
		return fmt.Errorf("%s: the jobs plugin is not visible here; register its Plugin in this context or an ancestor", what)
	}
	w := &worker[A, D]{fn: fn}
	return jobs.declare(what, func() {
		river.AddWorker(jobs.workers, w)
		jobs.resolvers = append(jobs.resolvers, func() error {
			if reflect.TypeFor[D]() == reflect.TypeFor[struct{}]() {
				return nil
			}
			deps, err := app.Resolve[D](s)
			if err != nil {
				return fmt.Errorf("worker of %q: %w", args.Kind(), err) // err names the context
			}
			w.deps = deps
			return nil
		})
	})
}

type worker[A river.JobArgs, D any] struct {
	river.WorkerDefaults[A]
	fn   WorkFunc[A, D]
	deps D // set at Ready, before the client starts
}

func (w *worker[A, D]) Work(ctx context.Context, job *river.Job[A]) error {
	if err := app.Validate(job.Args, "args"); err != nil {
		return river.JobCancel(err)
	}
	return w.fn(ctx, job, w.deps)
}

// Periodic declares, in s's context, a job inserted on schedule (for
// example river.PeriodicInterval(time.Hour), or a cron expression's
// schedule). args makes each run's arguments; opts may be nil. Call it
// in a plugin body, where jobs is visible.
func Periodic[TTx any](jobs *Jobs[TTx], s *app.Server, schedule river.PeriodicSchedule, args func() (river.JobArgs, *river.InsertOpts), opts *river.PeriodicJobOpts) error {
	what := fmt.Sprintf("periodic job in %s", s.Path())
	if schedule == nil || args == nil {
		return fmt.Errorf("%s: nil schedule or arguments", what)
	}
	if !app.HasService[*Jobs[TTx]](s) {
		return fmt.Errorf("%s: the jobs plugin is not visible here; register its Plugin in this context or an ancestor", what)
	}
	return jobs.declare(what, func() {
		jobs.periodic = append(jobs.periodic, river.NewPeriodicJob(schedule, args, opts))
	})
}
