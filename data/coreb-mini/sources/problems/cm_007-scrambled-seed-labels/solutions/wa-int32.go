package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
)

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	var n int
	fmt.Fscan(reader, &n)
	groups := make(map[string]int32)
	for i := 0; i < n; i++ {
		var word string
		fmt.Fscan(reader, &word)
		letters := strings.Split(word, "")
		sort.Strings(letters)
		groups[strings.Join(letters, "")]++
	}
	var pairs int32
	for _, k := range groups {
		pairs += k * (k - 1) / 2
	}
	fmt.Println(pairs)
}
