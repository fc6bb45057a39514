/**
 * The sample photo of the preset preview, drawn here (no asset to ship): a shaded red ball
 * on a soft studio gradient, a scene the model cuts out reliably.
 */
export async function sampleImage(): Promise<Blob> {
  const canvas = document.createElement('canvas')
  canvas.width = 480
  canvas.height = 360
  const g = canvas.getContext('2d')!
  const bg = g.createLinearGradient(0, 0, 0, 360)
  bg.addColorStop(0, '#dfe6ee')
  bg.addColorStop(1, '#aab6c4')
  g.fillStyle = bg
  g.fillRect(0, 0, 480, 360)
  const ball = g.createRadialGradient(200, 140, 10, 240, 180, 110)
  ball.addColorStop(0, '#ff8a7a')
  ball.addColorStop(0.6, '#d22b1f')
  ball.addColorStop(1, '#6e0f0a')
  g.fillStyle = ball
  g.beginPath()
  g.arc(240, 180, 100, 0, Math.PI * 2)
  g.fill()
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('canvas'))), 'image/png'))
}
