/** A canvas's backing store sized for the display's pixel ratio, its CSS box in CSS pixels (written only when they changed). */
export function sizeCanvas(canvas: HTMLCanvasElement, width: number, height: number, dpr: number): void {
  const w = Math.max(1, Math.round(width * dpr));
  const h = Math.max(1, Math.round(height * dpr));
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  const cssW = `${width}px`;
  const cssH = `${height}px`;
  if (canvas.style.width !== cssW) canvas.style.width = cssW;
  if (canvas.style.height !== cssH) canvas.style.height = cssH;
}
