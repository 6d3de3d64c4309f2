package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
)

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n int
	fmt.Fscan(in, &n)
	cars := make([][2]int64, n)
	for i := range cars {
		fmt.Fscan(in, &cars[i][0], &cars[i][1])
	}
	sort.Slice(cars, func(i, j int) bool { return cars[i][0] < cars[j][0] })
	active, best := 1, 1
	bestTime := cars[0][0]
	for i := 1; i < n; i++ {
		if cars[i][0] < cars[i-1][1] {
			active++
		} else {
			active = 1
		}
		if active > best {
			best = active
			bestTime = cars[i][0]
		}
	}
	fmt.Println(best, bestTime)
}
