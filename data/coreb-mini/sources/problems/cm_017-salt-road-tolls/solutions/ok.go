package main

import (
	"bufio"
	"container/heap"
	"fmt"
	"os"
	"strconv"
)

type item struct {
	d int64
	v int
}

type minHeap []item

func (h minHeap) Len() int            { return len(h) }
func (h minHeap) Less(i, j int) bool  { return h[i].d < h[j].d }
func (h minHeap) Swap(i, j int)       { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x interface{}) { *h = append(*h, x.(item)) }
func (h *minHeap) Pop() interface{} {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type edge struct {
	to int
	w  int64
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	var n, m int
	fmt.Fscan(in, &n, &m)
	adj := make([][]edge, n+1)
	for i := 0; i < m; i++ {
		var u, v int
		var w int64
		fmt.Fscan(in, &u, &v, &w)
		adj[u] = append(adj[u], edge{v, w})
		adj[v] = append(adj[v], edge{u, w})
	}
	dist := make([]int64, n+1)
	done := make([]bool, n+1)
	for i := range dist {
		dist[i] = -1
	}
	h := &minHeap{{0, 1}}
	dist[1] = 0
	for h.Len() > 0 {
		cur := heap.Pop(h).(item)
		if done[cur.v] {
			continue
		}
		done[cur.v] = true
		for _, e := range adj[cur.v] {
			nd := cur.d + e.w
			if dist[e.to] == -1 || nd < dist[e.to] {
				dist[e.to] = nd
				heap.Push(h, item{nd, e.to})
			}
		}
	}
	for i := 1; i <= n; i++ {
		if i > 1 {
			out.WriteByte(' ')
		}
		out.WriteString(strconv.FormatInt(dist[i], 10))
	}
	out.WriteByte('\n')
}
