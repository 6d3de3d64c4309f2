# Dijkstra with a hand-written binary heap of [distance, node] pairs
class MinHeap
  def initialize
    @a = []
  end

  def empty?
    @a.empty?
  end

  def push(x)
    @a << x
    i = @a.size - 1
    while i > 0
      p = (i - 1) / 2
      break if (@a[p] <=> @a[i]) <= 0
      @a[p], @a[i] = @a[i], @a[p]
      i = p
    end
  end

  def pop
    top = @a[0]
    last = @a.pop
    unless @a.empty?
      @a[0] = last
      i = 0
      loop do
        l = 2 * i + 1
        r = l + 1
        s = i
        s = l if l < @a.size && (@a[l] <=> @a[s]) < 0
        s = r if r < @a.size && (@a[r] <=> @a[s]) < 0
        break if s == i
        @a[s], @a[i] = @a[i], @a[s]
        i = s
      end
    end
    top
  end
end

data = STDIN.read.split.map(&:to_i)
n, m = data[0], data[1]
adj = Array.new(n + 1) { [] }
m.times do |i|
  u, v, w = data[2 + 3 * i, 3]
  adj[u] << [v, w]
  adj[v] << [u, w]
end
dist = Array.new(n + 1, -1)
heap = MinHeap.new
heap.push([0, 1])
until heap.empty?
  d, u = heap.pop
  next if dist[u] != -1
  dist[u] = d
  adj[u].each { |v, w| heap.push([d + w, v]) if dist[v] == -1 }
end
puts dist[1..n].join(' ')
