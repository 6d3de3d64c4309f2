package main

import (
	"bufio"
	"container/heap"
	"fmt"
	"os"
	"strconv"
)

type minHeap []int

func (h minHeap) Len() int            { return len(h) }
func (h minHeap) Less(i, j int) bool  { return h[i] < h[j] }
func (h minHeap) Swap(i, j int)       { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x interface{}) { *h = append(*h, x.(int)) }
func (h *minHeap) Pop() interface{} {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}

func main() {
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	writer := bufio.NewWriter(os.Stdout)
	defer writer.Flush()
	var n, m int
	fmt.Fscan(reader, &n, &m)
	succ := make([][]int, n+1)
	indeg := make([]int, n+1)
	for i := 0; i < m; i++ {
		var a, b int
		fmt.Fscan(reader, &a, &b)
		succ[a] = append(succ[a], b)
		indeg[b]++
	}
	ready := &minHeap{}
	for v := 1; v <= n; v++ {
		if indeg[v] == 0 {
			*ready = append(*ready, v)
		}
	}
	heap.Init(ready)
	order := make([]int, 0, n)
	for ready.Len() > 0 {
		v := heap.Pop(ready).(int)
		order = append(order, v)
		for _, w := range succ[v] {
			indeg[w]--
			if indeg[w] == 0 {
				heap.Push(ready, w)
			}
		}
	}
	if len(order) != n {
		fmt.Fprintln(writer, "IMPOSSIBLE")
		return
	}
	for i, v := range order {
		if i > 0 {
			writer.WriteByte(' ')
		}
		writer.WriteString(strconv.Itoa(v))
	}
	writer.WriteByte('\n')
}
