package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
)

type event struct {
	t     int64
	delta int
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n int
	fmt.Fscan(in, &n)
	events := make([]event, 0, 2*n)
	for i := 0; i < n; i++ {
		var s, e int64
		fmt.Fscan(in, &s, &e)
		events = append(events, event{s, 1}, event{e, -1})
	}
	sort.Slice(events, func(i, j int) bool {
		if events[i].t != events[j].t {
			return events[i].t < events[j].t
		}
		return events[i].delta < events[j].delta
	})
	active, best := 0, 0
	var bestTime int64
	for _, ev := range events {
		active += ev.delta
		if active > best {
			best = active
			bestTime = ev.t
		}
	}
	fmt.Println(best, bestTime)
}
