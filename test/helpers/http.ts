/** A response body as JSON, typed loosely: tests assert its shape themselves. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function json(res: Response): Promise<any> {
  return res.json()
}
