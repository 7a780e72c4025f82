package app_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"

	"github.com/burrow-go/burrow/app"
)

type price struct {
	Symbol string  `json:"symbol"`
	Value  float64 `json:"value"`
}

func ExampleEvents() {
	s := app.New(app.WithoutRequestLogging())
	_ = app.Events(s, "/prices", func(ctx context.Context, _ struct{}, es *app.EventStream[price]) error {
		n, _ := strconv.Atoi(es.LastEventID()) // 0 on a first connection
		for i := n + 1; i <= n+2; i++ {
			if err := es.Send(app.Event[price]{ID: strconv.Itoa(i), Name: "price", Data: price{"BRW", float64(i)}}); err != nil {
				return err
			}
		}
		return nil
	})
	req := httptest.NewRequest("GET", "/prices", nil)
	req.Header.Set("Last-Event-ID", "41") // a client that reconnects
	res, _ := s.Inject(req)
	defer res.Body.Close()
	body := bufio.NewScanner(res.Body)
	for body.Scan() {
		fmt.Println(body.Text())
	}
	// Output:
	// id: 42
	// event: price
	// data: {"symbol":"BRW","value":42}
	//
	// id: 43
	// event: price
	// data: {"symbol":"BRW","value":43}
}
