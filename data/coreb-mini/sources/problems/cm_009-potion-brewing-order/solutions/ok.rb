# Binary min-heap of potion numbers.
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
      break if @a[p] <= @a[i]
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
      n = @a.size
      loop do
        l = 2 * i + 1
        r = l + 1
        s = i
        s = l if l < n && @a[l] < @a[s]
        s = r if r < n && @a[r] < @a[s]
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
succ = Array.new(n + 1) { [] }
indeg = Array.new(n + 1, 0)
m.times do |i|
  a = data[2 + 2 * i]
  b = data[3 + 2 * i]
  succ[a] << b
  indeg[b] += 1
end
ready = MinHeap.new
(1..n).each { |v| ready.push(v) if indeg[v].zero? }
order = []
until ready.empty?
  v = ready.pop
  order << v
  succ[v].each do |w|
    indeg[w] -= 1
    ready.push(w) if indeg[w].zero?
  end
end
puts(order.size == n ? order.join(' ') : 'IMPOSSIBLE')
