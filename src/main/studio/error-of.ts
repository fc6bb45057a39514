/**
 * The error of a coordinator's answer, read by the worker's link (`http-link.ts`) and the
 * remote host (`remote-host.ts`) alike: its code and message, or the status and the first
 * 300 characters of the body when the body is not our error shape.
 */
export async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  const text = await res.text().catch(() => '')
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } }
    return { code: body.error?.code ?? String(res.status), message: body.error?.message ?? text.slice(0, 300) }
  } catch {
    return { code: String(res.status), message: text.slice(0, 300) }
  }
}
