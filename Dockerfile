# Build stage: install everything, generate the Prisma client, compile TypeScript.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# --omit=optional as well: Prisma's CLI (with Studio, effect and TypeScript, about 250 MB) is an
# optional peer of @prisma/client and survives --omit=dev alone; the app runs on the generated
# client and @prisma/client's runtime. The only other optional package is pg-cloudflare.
RUN npm run build && npm prune --omit=dev --omit=optional --ignore-scripts

# Runtime stage: compiled code, production dependencies and the migrations the app applies.
FROM node:22-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
USER node
EXPOSE 3000
# Liveness (/health), not readiness: orchestrators that act on this check (Swarm, ECS) replace an
# unhealthy container, and restarting every instance during a database outage fixes nothing.
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "--max-semi-space-size=8", "dist/src/server.js"]
