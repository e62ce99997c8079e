/**
 * Drain clustering: token sequences of the same length that share their leading tokens and agree on
 * enough of the rest belong to one cluster, whose template has `<_>` wherever its members differ.
 *
 * The search tree has a level for the token count, then one level per leading token down to a
 * fixed depth; a token with a digit in it goes under the `<_>` branch (numbers are rarely constant),
 * and a node with too many children sends new tokens there too. At the leaf, the cluster with the
 * highest share of equal tokens wins if that share reaches the threshold; ties go to the more
 * general template. The parameters are Loki's pattern ingester defaults.
 *
 * Deterministic: the same sequences in the same order give the same clusters. Bounded: at most
 * `maxClusters` clusters; once full, a sequence that matches none is refused (the caller counts it).
 */
import { VARIABLE } from "./tokenize";

export interface DrainOptions {
  /** Depth of the tree below the root, token-count level included (Loki: 30 − 2). */
  maxNodeDepth: number;
  similarity: number;
  maxChildren: number;
  maxClusters: number;
}

export const DEFAULT_DRAIN_OPTIONS: DrainOptions = {
  maxNodeDepth: 28,
  similarity: 0.3,
  maxChildren: 15,
  maxClusters: 300,
};

/** Sequences shorter or longer than this are not clustered (Loki's bounds). */
export const MIN_TOKENS = 4;
export const MAX_TOKENS = 80;

export interface Cluster {
  id: number;
  tokens: string[];
  /** Whatever the caller keeps with the cluster (spacing, counts). */
  spacesAfter: number[];
}

interface TreeNode {
  children: Map<string, TreeNode>;
  clusters: Cluster[];
}

const node = (): TreeNode => ({ children: new Map(), clusters: [] });
const HAS_NUMBER = /\p{N}/u;

export class Drain {
  private readonly root = node();
  private readonly all: Cluster[] = [];

  constructor(private readonly o: DrainOptions = DEFAULT_DRAIN_OPTIONS) {}

  get clusters(): readonly Cluster[] {
    return this.all;
  }

  /**
   * The cluster `tokens` joins (its template updated), a new cluster, or undefined when the sequence
   * is out of bounds or the drain is full.
   */
  add(tokens: readonly string[], spacesAfter: readonly number[]): Cluster | undefined {
    if (tokens.length < MIN_TOKENS || tokens.length > MAX_TOKENS) return undefined;
    const leaf = this.search(tokens);
    const match = leaf ? this.bestMatch(leaf.clusters, tokens) : undefined;
    if (match) {
      for (let i = 0; i < tokens.length; i++) if (match.tokens[i] !== tokens[i]) match.tokens[i] = VARIABLE;
      return match;
    }
    if (this.all.length >= this.o.maxClusters) return undefined;
    const cluster: Cluster = { id: this.all.length, tokens: [...tokens], spacesAfter: [...spacesAfter] };
    this.all.push(cluster);
    this.insert(cluster);
    return cluster;
  }

  private search(tokens: readonly string[]): TreeNode | undefined {
    let cur = this.root.children.get(String(tokens.length));
    if (!cur) return undefined;
    let depth = 1;
    for (const token of tokens) {
      if (depth >= this.o.maxNodeDepth || depth === tokens.length) break;
      const next: TreeNode | undefined = cur.children.get(token) ?? cur.children.get(VARIABLE);
      if (!next) return undefined;
      cur = next;
      depth++;
    }
    return cur;
  }

  private bestMatch(candidates: readonly Cluster[], tokens: readonly string[]): Cluster | undefined {
    let best: Cluster | undefined;
    let bestSim = -1;
    let bestParams = -1;
    for (const c of candidates) {
      let same = 0;
      let params = 0;
      for (let i = 0; i < tokens.length; i++) {
        const t = c.tokens[i];
        if (t === VARIABLE) params++;
        else if (t === tokens[i]) same++;
      }
      const sim = same / tokens.length;
      if (sim > bestSim || (sim === bestSim && params > bestParams)) {
        best = c;
        bestSim = sim;
        bestParams = params;
      }
    }
    return bestSim >= this.o.similarity ? best : undefined;
  }

  private insert(cluster: Cluster): void {
    const count = String(cluster.tokens.length);
    let cur: TreeNode = this.root.children.get(count) ?? setChild(this.root, count);
    let depth = 1;
    for (const token of cluster.tokens) {
      if (depth >= this.o.maxNodeDepth || depth >= cluster.tokens.length) break;
      let next: TreeNode | undefined = cur.children.get(token);
      if (!next) {
        const wildcard = cur.children.get(VARIABLE);
        if (HAS_NUMBER.test(token)) {
          next = wildcard ?? setChild(cur, VARIABLE);
        } else if (wildcard) {
          next = cur.children.size < this.o.maxChildren ? setChild(cur, token) : wildcard;
        } else if (cur.children.size + 1 < this.o.maxChildren) {
          next = setChild(cur, token);
        } else if (cur.children.size + 1 === this.o.maxChildren) {
          next = setChild(cur, VARIABLE);
        } else {
          // Full and no wildcard branch to fall back on: the cluster stays at this node.
          break;
        }
      }
      cur = next;
      depth++;
    }
    cur.clusters.push(cluster);
  }
}

function setChild(parent: TreeNode, key: string): TreeNode {
  const child = node();
  parent.children.set(key, child);
  return child;
}
