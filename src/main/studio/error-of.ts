/**
 * The error of a coordinator's answer, read by the worker's link and its remote host alike (its
 * own module, so that neither imports the other for it).
 */
/** An answer the coordinator gave with an error body. */
export async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  const text = await res.text().catch(() => '')
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } }
    return { code: body.error?.code ?? String(res.status), message: body.error?.message ?? text.slice(0, 300) }
  } catch {
    return { code: String(res.status), message: text.slice(0, 300) }
  }
}
