package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
)

type span struct{ a, b int64 }

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n int
	fmt.Fscan(reader, &n)
	spans := make([]span, n)
	for i := range spans {
		fmt.Fscan(reader, &spans[i].a, &spans[i].b)
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].a != spans[j].a {
			return spans[i].a < spans[j].a
		}
		return spans[i].b < spans[j].b
	})
	var total int64
	start, end := spans[0].a, spans[0].b
	for _, s := range spans[1:] {
		if s.a <= end {
			if s.b > end {
				end = s.b
			}
		} else {
			total += end - start
			start, end = s.a, s.b
		}
	}
	total += end - start
	fmt.Println(total)
}
