"""Maximum-weight matching in a general graph: Edmonds' blossom algorithm with dual variables,
O(n³) for n vertices (the version that keeps, for every blossom, its least-slack edge to each other
blossom and vertex, so a round of dual changes costs O(n) and a new blossom O(n²)).

Weights are integers and so is every step (the duals are kept doubled), so the matching found is
exactly the heaviest, with nothing rounded. The Swiss pairing (:mod:`arena.formats.swiss`) finds
its pairings of the least total score gap with it.

In short: vertices carry duals ``y`` and blossoms (odd cycles shrunk to one vertex) duals ``z``; an
edge is tight when its slack ``y_u + y_v - 2w`` is zero. Each stage grows alternating trees from
the unmatched vertices along tight edges, labelling vertices outer (even distance from a root) and
inner (odd); an edge between two outer vertices of different trees is an augmenting path (the
matching grows by one and the stage ends), of the same tree an odd cycle (shrunk into a blossom).
When no tight edge is left to follow, the duals change by the largest step that keeps every slack
and every blossom's dual at zero or more, which makes at least one more edge tight or a blossom's
dual zero (an inner blossom with a zero dual is expanded again). The stages end when an outer
vertex's dual reaches zero: no augmentation can add weight any more.
"""

from __future__ import annotations

from collections.abc import Iterable

#: an edge as the search keeps it: (vertex, vertex, weight), the first vertex on the side it is
#: looked at from
Edge = tuple[int, int, int]

#: a vertex's or blossom's label in the alternating trees of a stage
UNLABELLED, OUTER, INNER = -1, 0, 1


def max_weight_matching(size: int, edges: Iterable[tuple[int, int, int]]) -> list[int | None]:
    """A matching of greatest total weight in the graph of vertices ``0 .. size - 1`` and
    ``edges`` (``(u, v, weight)``, each weight a positive integer; a pair given twice keeps its
    last weight): for each vertex, its mate, ``None`` if it is unmatched.

    With each weight ``big - cost``, ``big`` more than any matching's total ``cost``, the heaviest
    matching has the most edges a matching of the graph can have and, among those, the least total
    ``cost``."""
    blossoms = _Blossoms(size, edges)
    while blossoms.augment():
        pass
    return [mate - 1 if mate else None for mate in blossoms.mate[1 : size + 1]]


class _Blossoms:
    """The state of the search. Vertices are ``1 .. n``, blossoms ``n + 1 .. 2n`` (a blossom's
    number is used again once it is expanded); 0 means none."""

    def __init__(self, size: int, edges: Iterable[tuple[int, int, int]]) -> None:
        n = size
        slots = 2 * n + 1
        self.n = n
        self.used = n  # the highest number a vertex or blossom has had
        #: the least-slack edge between two vertices or blossoms (both vertices of an edge given)
        self.edge: list[list[Edge | None]] = [[None] * slots for _ in range(slots)]
        heaviest = 0
        for u, v, weight in edges:
            if weight <= 0 or u == v:
                raise ValueError(f"edge ({u}, {v}, {weight}): weights are positive, and join two vertices")
            self.edge[u + 1][v + 1] = (u + 1, v + 1, weight)
            self.edge[v + 1][u + 1] = (v + 1, u + 1, weight)
            heaviest = max(heaviest, weight)
        #: doubled duals: a vertex's starts at the heaviest weight, a blossom's at 0
        self.dual = [heaviest] * (n + 1) + [0] * n
        #: the vertex across the matched edge of a vertex or blossom (0: unmatched)
        self.mate = [0] * slots
        #: the outermost blossom a vertex or blossom is in (itself at the top; 0: a free blossom number)
        self.top = list(range(n + 1)) + [0] * n
        #: a blossom's sub-blossoms around its cycle, the base first
        self.children: list[list[int]] = [[] for _ in range(slots)]
        #: for a blossom and a vertex in it, the sub-blossom the vertex is in
        self.child_with = [[0] * (n + 1) for _ in range(slots)]
        for vertex in range(1, n + 1):
            self.child_with[vertex][vertex] = vertex
        self.label = [UNLABELLED] * slots
        #: the outer vertex an inner blossom was reached from
        self.reached_from = [0] * slots
        #: for a top blossom, the outer vertex of its least-slack edge to an outer blossom (0: none)
        self.nearest = [0] * slots
        self.visited = [0] * slots
        self.stamp = 0
        self.queue: list[int] = []

    def slack(self, edge: Edge) -> int:
        """The doubled slack of ``edge``: zero when it is tight."""
        return self.dual[edge[0]] + self.dual[edge[1]] - 2 * edge[2]

    def augment(self) -> bool:
        """One stage: whether it found an augmenting path (and augmented the matching by it)."""
        n, top, label = self.n, self.top, self.label
        self.label = label = [UNLABELLED] * len(label)
        self.nearest = [0] * len(label)
        self.queue = []
        for x in range(1, self.used + 1):
            if top[x] == x and not self.mate[x]:
                self.reached_from[x] = 0
                label[x] = OUTER
                self.push(x)
        if not self.queue:
            return False
        while True:
            while self.queue:
                u = self.queue.pop()
                if label[top[u]] != OUTER:
                    continue
                row = self.edge[u]
                for v in range(1, n + 1):
                    edge = row[v]
                    if edge is None or top[u] == top[v]:
                        continue
                    if self.slack(edge) == 0:
                        if self.follow(edge):
                            return True
                    else:
                        self.offer(u, top[v])
            if not self.change_duals():
                return False
            self.queue = []
            for x in range(1, self.used + 1):
                if top[x] == x and self.nearest[x] and top[self.nearest[x]] != x:
                    edge = self.edge[self.nearest[x]][x]
                    if edge is not None and self.slack(edge) == 0 and self.follow(edge):
                        return True
            for b in range(n + 1, self.used + 1):
                if top[b] == b and label[b] == INNER and self.dual[b] == 0:
                    self.expand(b)

    def change_duals(self) -> bool:
        """Change the duals by the largest step allowed; ``False`` if the step is limited by an
        outer vertex's dual reaching zero (the matching is then the heaviest)."""
        n, top, label, dual = self.n, self.top, self.label, self.dual
        steps: list[int] = []
        for x in range(1, self.used + 1):
            if top[x] != x:
                continue
            if x > n and label[x] == INNER:
                steps.append(dual[x] // 2)
            edge = self.edge[self.nearest[x]][x] if self.nearest[x] else None
            if edge is not None and label[x] == UNLABELLED:
                steps.append(self.slack(edge))
            elif edge is not None and label[x] == OUTER:
                steps.append(self.slack(edge) // 2)  # even: both ends are outer
        outer = [u for u in range(1, n + 1) if label[top[u]] == OUTER]
        step = min(steps, default=None)
        if step is None or min(dual[u] for u in outer) <= step:
            return False
        for u in range(1, n + 1):
            if label[top[u]] == OUTER:
                dual[u] -= step
            elif label[top[u]] == INNER:
                dual[u] += step
        for b in range(n + 1, self.used + 1):
            if top[b] == b and label[b] == OUTER:
                dual[b] += 2 * step
            elif top[b] == b and label[b] == INNER:
                dual[b] -= 2 * step
        return True

    def offer(self, u: int, x: int) -> None:
        """Keep the edge from outer vertex ``u`` to top blossom ``x`` if it is ``x``'s least slack."""
        edge = self.edge[u][x]
        if edge is None:
            return
        current = self.edge[self.nearest[x]][x] if self.nearest[x] else None
        if current is None or self.slack(edge) < self.slack(current):
            self.nearest[x] = u

    def find_nearest(self, x: int) -> None:
        """Find top blossom ``x``'s least-slack edge to an outer vertex outside it."""
        self.nearest[x] = 0
        for u in range(1, self.n + 1):
            if self.top[u] != x and self.label[self.top[u]] == OUTER:
                self.offer(u, x)

    def push(self, x: int) -> None:
        """Queue the vertices of ``x`` to have their edges followed."""
        if x <= self.n:
            self.queue.append(x)
        else:
            for child in self.children[x]:
                self.push(child)

    def set_top(self, x: int, b: int) -> None:
        """Make ``b`` the top blossom of ``x`` and everything in it."""
        self.top[x] = b
        if x > self.n:
            for child in self.children[x]:
                self.set_top(child, b)

    def even_side(self, b: int, child: int) -> int:
        """The position of ``child`` in blossom ``b``'s cycle, going round the way that makes it
        even (the cycle is turned round if needed): the path from the base to it alternates
        matched and unmatched edges, starting with a matched one."""
        children = self.children[b]
        position = children.index(child)
        if position % 2 == 0:
            return position
        children[1:] = children[:0:-1]
        return len(children) - position

    def match(self, u: int, v: int) -> None:
        """Match top blossom (or vertex) ``u`` to ``v`` along their edge, and re-match the inside of
        ``u`` so that the vertex of the edge becomes its base."""
        edge = self.edge[u][v]
        assert edge is not None
        self.mate[u] = edge[1]
        if u <= self.n:
            return
        entry = self.child_with[u][edge[0]]
        position = self.even_side(u, entry)
        children = self.children[u]
        for i in range(position):
            self.match(children[i], children[i ^ 1])
        self.match(entry, v)
        self.children[u] = children[position:] + children[:position]

    def flip(self, u: int, v: int) -> None:
        """Augment along the tree path from outer blossom ``u`` to its root, ``u`` taking ``v``."""
        while True:
            inner = self.top[self.mate[u]]
            self.match(u, v)
            if not inner:
                return
            self.match(inner, self.top[self.reached_from[inner]])
            u, v = self.top[self.reached_from[inner]], inner

    def common_ancestor(self, u: int, v: int) -> int:
        """The nearest outer blossom on both tree paths up from ``u`` and ``v`` (0: they are in
        different trees)."""
        self.stamp += 1
        while u or v:
            if u:
                if self.visited[u] == self.stamp:
                    return u
                self.visited[u] = self.stamp
                u = self.top[self.mate[u]]
                if u:
                    u = self.top[self.reached_from[u]]
            u, v = v, u
        return 0

    def follow(self, edge: Edge) -> bool:
        """Follow tight ``edge`` from an outer vertex: label what it reaches, or shrink the odd
        cycle it closes; ``True`` if it completed an augmenting path (the matching then grew)."""
        u, v = self.top[edge[0]], self.top[edge[1]]
        if self.label[v] == UNLABELLED:
            self.reached_from[v] = edge[0]
            self.label[v] = INNER
            mate = self.top[self.mate[v]]
            self.nearest[v] = self.nearest[mate] = 0
            self.label[mate] = OUTER
            self.push(mate)
        elif self.label[v] == OUTER:
            ancestor = self.common_ancestor(u, v)
            if not ancestor:
                self.flip(u, v)
                self.flip(v, u)
                return True
            self.shrink(u, ancestor, v)
        return False

    def shrink(self, u: int, ancestor: int, v: int) -> None:
        """Make the odd cycle closed by the edge of outer blossoms ``u`` and ``v`` (their tree paths
        meeting at ``ancestor``) a new outer blossom."""
        n, top = self.n, self.top
        b = n + 1
        while b <= self.used and top[b]:
            b += 1
        self.used = max(self.used, b)
        self.dual[b] = 0
        self.label[b] = OUTER
        self.mate[b] = self.mate[ancestor]
        cycle = [ancestor]
        for start, turn in ((u, True), (v, False)):
            side: list[int] = []
            x = start
            while x != ancestor:
                inner = top[self.mate[x]]
                side += [x, inner]
                self.push(inner)  # inner blossoms of the cycle become outer: their edges are followed
                x = top[self.reached_from[inner]]
            cycle += side[::-1] if turn else side
        self.children[b] = cycle
        self.set_top(b, b)
        row = self.edge[b]
        for x in range(1, self.used + 1):
            row[x] = self.edge[x][b] = None
        self.child_with[b] = [0] * (n + 1)
        for child in cycle:
            for x in range(1, self.used + 1):
                edge, best = self.edge[child][x], row[x]
                if edge is not None and (best is None or self.slack(edge) < self.slack(best)):
                    row[x] = edge
                    self.edge[x][b] = self.edge[x][child]
            for vertex, holder in enumerate(self.child_with[child]):
                if holder:
                    self.child_with[b][vertex] = child
        self.find_nearest(b)

    def expand(self, b: int) -> None:
        """Expand inner blossom ``b`` (its dual is zero) back into its sub-blossoms: those on the
        even path from where the tree enters it to its base stay in the tree, the others are
        unlabelled."""
        children = self.children[b]
        for child in children:
            self.set_top(child, child)
        edge = self.edge[b][self.reached_from[b]]
        assert edge is not None
        entry = self.child_with[b][edge[0]]
        position = self.even_side(b, entry)
        children = self.children[b]
        for i in range(0, position, 2):
            inner, outer = children[i], children[i + 1]
            towards = self.edge[outer][inner]
            assert towards is not None
            self.reached_from[inner] = towards[0]
            self.label[inner] = INNER
            self.label[outer] = OUTER
            self.nearest[inner] = 0
            self.find_nearest(outer)
            self.push(outer)
        self.label[entry] = INNER
        self.reached_from[entry] = self.reached_from[b]
        for child in children[position + 1 :]:
            self.label[child] = UNLABELLED
            self.find_nearest(child)
        self.top[b] = 0
