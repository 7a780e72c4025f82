package pubsub_test

import (
	"fmt"
	"time"

	"github.com/burrow-go/burrow/plugins/pubsub"
)

func Example() {
	link := pubsub.NewMemory() // two instances in one process; Redis between servers
	one := pubsub.New(pubsub.WithTransport(link))
	two := pubsub.New(pubsub.WithTransport(link))
	sub := two.Subscribe("todos")
	ready := two.Subscribe("ready")
	two.Start()
	defer two.Stop()
	one.Start()
	defer one.Stop()
	for received := false; !received; { // until two receives from one: both have started
		one.Publish("ready", nil)
		select {
		case <-ready.C:
			received = true
		case <-time.After(10 * time.Millisecond): // not yet: publish again
		}
	}
	one.Publish("todos", []byte(`{"title":"write the docs"}`))
	m := <-sub.C
	fmt.Println(m.Topic, string(m.Data))
	fmt.Println("dropped subscribers:", two.Stats().Dropped)
	// Output:
	// todos {"title":"write the docs"}
	// dropped subscribers: 0
}
