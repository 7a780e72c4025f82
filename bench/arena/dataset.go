package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// rating is the nested object of a dataset item.
type rating struct {
	Score int `json:"score"`
	Count int `json:"count"`
}

// item is one entry of dataset.json, with every field the file has.
type item struct {
	ID       int      `json:"id"`
	Name     string   `json:"name"`
	Category string   `json:"category"`
	Price    int      `json:"price"`
	Quantity int      `json:"quantity"`
	Active   bool     `json:"active"`
	Tags     []string `json:"tags"`
	Rating   rating   `json:"rating"`
}

// pricedItem is an item of the /json answer: the item and its total.
type pricedItem struct {
	item
	Total int `json:"total"`
}

// itemList is the /json answer, built anew for every request.
type itemList struct {
	Items []pricedItem `json:"items"`
	Count int          `json:"count"`
}

// loadDataset reads DIR/dataset.json once, at start.
func loadDataset(dir string) ([]item, error) {
	b, err := os.ReadFile(filepath.Join(dir, "dataset.json")) // #nosec G304 -- the operator's -data folder
	if err != nil {
		return nil, fmt.Errorf("reading the dataset: %w", err)
	}
	var items []item
	if err := json.Unmarshal(b, &items); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", filepath.Join(dir, "dataset.json"), err)
	}
	return items, nil
}

// priced is the first count items, each with total = price × quantity × m.
func priced(dataset []item, count, m int) itemList {
	count = max(0, min(count, len(dataset)))
	list := itemList{Items: make([]pricedItem, count), Count: count}
	for i := range count {
		it := &dataset[i]
		list.Items[i] = pricedItem{item: *it, Total: it.Price * it.Quantity * m}
	}
	return list
}
