/**
 * Statistics of the review benchmark: ROC AUC, Spearman's rank correlation, an L2-regularised
 * logistic fit (Newton's method on standardised terms, so it is deterministic) and grouped
 * cross-validation, and the threshold for "to check".
 */

/** Ranks from 1, ties sharing their mean rank. */
export function ranks(values: number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0])
  const out = new Array<number>(values.length)
  for (let i = 0; i < order.length; ) {
    let j = i
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++
    for (let k = i; k <= j; k++) out[order[k]![1]] = (i + j) / 2 + 1
    i = j + 1
  }
  return out
}

/** Spearman's rank correlation (Pearson's on the ranks); NaN with fewer than 3 pairs or a constant side. */
export function spearman(x: number[], y: number[]): number {
  if (x.length < 3) return NaN
  const rx = ranks(x)
  const ry = ranks(y)
  const mean = (v: number[]): number => v.reduce((s, a) => s + a, 0) / v.length
  const mx = mean(rx)
  const my = mean(ry)
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < rx.length; i++) {
    sxy += (rx[i]! - mx) * (ry[i]! - my)
    sxx += (rx[i]! - mx) ** 2
    syy += (ry[i]! - my) ** 2
  }
  return sxx === 0 || syy === 0 ? NaN : sxy / Math.sqrt(sxx * syy)
}

/** Area under the ROC curve: the chance that a positive scores above a negative (ties count half). */
export function auc(positives: number[], negatives: number[]): number {
  if (positives.length === 0 || negatives.length === 0) return NaN
  let wins = 0
  for (const p of positives) for (const n of negatives) wins += p > n ? 1 : p === n ? 0.5 : 0
  return wins / (positives.length * negatives.length)
}

export interface Logistic {
  bias: number
  /** One weight per term, in the terms' own units. */
  weights: number[]
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z))
}

export function predict(model: Logistic, x: number[]): number {
  return sigmoid(model.weights.reduce((s, w, k) => s + w * x[k]!, model.bias))
}

/**
 * Logistic regression of y (0/1) on the rows of `x`, with an L2 penalty `lambda` on the weights
 * of the standardised terms (not on the bias); the weights are returned in the terms' own units.
 */
export function fitLogistic(x: number[][], y: number[], lambda: number): Logistic {
  const d = x[0]?.length ?? 0
  const mean = Array.from({ length: d }, (_, k) => x.reduce((s, r) => s + r[k]!, 0) / x.length)
  const sd = Array.from({ length: d }, (_, k) => Math.sqrt(x.reduce((s, r) => s + (r[k]! - mean[k]!) ** 2, 0) / x.length) || 1)
  const z = x.map((r) => [1, ...r.map((v, k) => (v - mean[k]!) / sd[k]!)])
  let beta = new Array<number>(d + 1).fill(0)
  for (let iter = 0; iter < 100; iter++) {
    const grad = new Array<number>(d + 1).fill(0)
    const hess = Array.from({ length: d + 1 }, () => new Array<number>(d + 1).fill(0))
    for (let i = 0; i < z.length; i++) {
      const row = z[i]!
      const p = sigmoid(row.reduce((s, v, k) => s + v * beta[k]!, 0))
      const w = Math.max(p * (1 - p), 1e-9)
      for (let a = 0; a <= d; a++) {
        grad[a]! += (p - y[i]!) * row[a]!
        for (let b = 0; b <= d; b++) hess[a]![b]! += w * row[a]! * row[b]!
      }
    }
    for (let a = 1; a <= d; a++) {
      grad[a]! += lambda * beta[a]!
      hess[a]![a]! += lambda
    }
    const step = solve(hess, grad)
    beta = beta.map((b, k) => b - step[k]!)
    if (Math.max(...step.map(Math.abs)) < 1e-10) break
  }
  const weights = beta.slice(1).map((b, k) => b / sd[k]!)
  const bias = beta[0]! - weights.reduce((s, w, k) => s + w * mean[k]!, 0)
  return { bias, weights }
}

/** Solves A·v = b (Gaussian elimination with partial pivoting; A is small and positive definite here). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length
  const m = a.map((row, i) => [...row, b[i]!])
  for (let c = 0; c < n; c++) {
    let p = c
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r
    ;[m[c], m[p]] = [m[p]!, m[c]!]
    for (let r = 0; r < n; r++) {
      if (r === c) continue
      const f = m[r]![c]! / m[c]![c]!
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!
    }
  }
  return m.map((row, i) => row[n]! / row[i]!)
}

/**
 * Out-of-fold predictions: for each group, a model fitted on the labelled rows of every other
 * group predicts that group's rows (all of them, labelled or not).
 */
export function groupedOutOfFold(x: number[][], y: Array<number | null>, groups: string[], lambda: number): number[] {
  const out = new Array<number>(x.length).fill(NaN)
  for (const g of new Set(groups)) {
    const train = x.map((_, i) => i).filter((i) => groups[i] !== g && y[i] !== null)
    const model = fitLogistic(
      train.map((i) => x[i]!),
      train.map((i) => y[i]!),
      lambda
    )
    x.forEach((r, i) => {
      if (groups[i] === g) out[i] = predict(model, r)
    })
  }
  return out
}

/** Precision and recall of flagging score ≥ t, for rows marked bad. */
export function flagging(scores: number[], bad: boolean[], t: number): { flagged: number; precision: number; recall: number } {
  let tp = 0
  let flagged = 0
  const positives = bad.filter(Boolean).length
  scores.forEach((s, i) => {
    if (s < t) return
    flagged++
    if (bad[i]) tp++
  })
  return { flagged, precision: flagged === 0 ? NaN : tp / flagged, recall: positives === 0 ? NaN : tp / positives }
}
